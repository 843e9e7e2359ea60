// The page to check text in: starts a run through the LangGraph server's own API (a thread,
// runs/stream), draws the report of the claims decided so far as they come, stops a run on the
// server, lists the server's recent threads. Every text from a person, a model or the evidence
// goes into this page through textContent; the report is the report's own page, in a sandboxed frame.
(function () {
  "use strict";
  var GRAPHS = JSON.parse(document.body.dataset.graphs);
  var MADE_BY = "factcourt ui";
  // the progress events that stand for one agent's answer (the Clerk's split, a turn, a ruling)
  var ANSWERS = ["claims", "first_pass", "turn_done", "round_summary", "judge_ruling", "judged"];
  function $(id) { return document.getElementById(id); }
  var form = $("start-form"), text = $("text"), question = $("question"), evidence = $("evidence");
  var message = $("message"), progress = $("progress"), frame = $("report");
  var startButton = $("start"), stopButton = $("stop");
  var run = null;  // the run shown: its thread, id, what came in and what was drawn
  var clock = null;

  function say(words) {
    message.textContent = words || "";
    message.hidden = !words;
  }

  // A server's or a browser's complaint as a sentence: capital first, full stop last.
  function sentence(words) {
    var s = String(words || "").trim();
    if (!s) return "";
    s = s.charAt(0).toUpperCase() + s.slice(1);
    return /[.!?]$/.test(s) ? s : s + ".";
  }

  function mode() { return form.querySelector('input[name="mode"]:checked').value; }

  function showMode() {
    var m = mode();
    document.querySelectorAll("[data-modes]").forEach(function (el) {
      el.hidden = el.dataset.modes.split(" ").indexOf(m) < 0;
    });
    [$("text-label"), $("question-label")].forEach(function (label) { label.textContent = label.dataset[m]; });
  }
  form.addEventListener("change", function (e) { if (e.target.name === "mode") showMode(); });
  showMode();

  // ------------------------------------------------------------------ a file dropped or chosen

  function readFile(file) {
    if (!file) return;
    say("");  // what was said is about the text before this file
    if (!/\.(txt|md)$/i.test(file.name)) {
      say("Only .txt and .md files can be read: " + file.name + " is neither.");
      return;
    }
    file.arrayBuffer().then(function (bytes) {
      try {
        text.value = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
        say("");
      } catch (err) {
        say(file.name + " is not UTF-8 text: save it as UTF-8 and try again.");
      }
    });
  }
  $("file").addEventListener("change", function (e) { readFile(e.target.files[0]); });
  var drop = $("drop");
  drop.addEventListener("dragover", function (e) { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", function () { drop.classList.remove("over"); });
  drop.addEventListener("drop", function (e) {
    e.preventDefault();
    drop.classList.remove("over");
    readFile(e.dataTransfer.files[0]);
  });

  // ------------------------------------------------------------------ the server

  function refusal(response) {
    return response.text().then(function (body) {
      var detail = body;
      try {
        var parsed = JSON.parse(body);
        detail = parsed.detail || parsed.message || parsed.error || body;
        if (Array.isArray(detail)) detail = detail.map(function (d) { return d.msg || JSON.stringify(d); }).join("; ");
      } catch (err) { /* not JSON: the text as it came */ }
      throw new Error(sentence(detail || "the server answered HTTP " + response.status));
    });
  }

  function api(path, body) {
    var init = body === undefined ? {} : {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body)
    };
    return fetch(path, init).then(function (r) { return r.ok ? r : refusal(r); });
  }

  // The server-sent events of a streamed run, each handed to ``handle(event, data)``.
  function stream(response, handle) {
    var reader = response.body.getReader(), decoder = new TextDecoder(), buffer = "";
    function take(block) {
      var event = "message", data = [];
      block.split(/\r?\n/).forEach(function (line) {
        if (line.indexOf("event:") === 0) event = line.slice(6).trim();
        else if (line.indexOf("data:") === 0) data.push(line.slice(5).replace(/^ /, ""));
      });
      if (data.length) handle(event, JSON.parse(data.join("\n")));
    }
    function pump() {
      return reader.read().then(function (part) {
        buffer += decoder.decode(part.value || new Uint8Array(), { stream: !part.done });
        var blocks = buffer.split(/\r?\n\r?\n/);
        buffer = blocks.pop();
        blocks.forEach(take);
        if (part.done) { if (buffer.trim()) take(buffer); return; }
        return pump();
      });
    }
    return pump();
  }

  // ------------------------------------------------------------------ what the run shows

  function settings(m) {
    var context = {};
    document.querySelectorAll("[data-setting]").forEach(function (field) {
      var row = field.closest("[data-modes]");
      if (field.value === "" || row.dataset.modes.split(" ").indexOf(m) < 0) return;
      context[field.dataset.setting] = "number" in field.dataset ? Number(field.value) : field.value;
    });
    return context;
  }

  function payload(m, body, asked) {
    if (m === "check") return { response: body, question: asked };
    if (m === "detect") return { question: asked, answer: body };
    var input = { claim: { id: "c1", text: body }, question: asked };
    if (evidence.value.trim()) input.given_evidence = [{ text: evidence.value, source: "given" }];
    return input;
  }

  function elapsed() { return Math.round(((run.ended || Date.now()) - run.started) / 1000) + " s"; }

  function showProgress() {
    if (!run) return;
    var done = Object.keys(run.decided).length;
    var total = run.total === null ? "?" : run.total;
    var calls = run.result && run.result.usage ? run.result.usage.calls + " model calls"
      : run.answers + " agent answers";
    var state = run.result ? "Finished" : run.stopped && run.ended ? "Stopped" : run.failed ? "Failed" : "Checking";
    progress.textContent = state + ": " + done + " of " + total + " claims done · " + elapsed() + " · " + calls;
  }

  // The report of ``result`` in the frame: drawn by the server's report code, one draw at a time.
  function draw(result, kind) {
    if (run.drawing) { run.redraw = [result, kind]; return run.drawing; }
    run.drawing = api("/ui/report", { result: result, kind: kind })
      .then(function (r) { return r.text(); })
      .then(function (html) { frame.srcdoc = html; run.html = html; })
      .catch(function (err) { say(err.message); })
      .then(function () {
        run.drawing = null;
        var next = run.redraw;
        run.redraw = null;
        return next ? draw(next[0], next[1]) : null;
      });
    return run.drawing;
  }

  // What a check has decided so far, in the shape of its result: the decided claims only.
  function soFar() {
    var claims = (run.claims || []).filter(function (c) { return run.decided[c.id]; })
      .map(function (c) { return Object.assign({}, c, run.decided[c.id]); });
    return { response: run.response || "", question: run.question || "", claims: claims,
      dropped: run.dropped || [], scores: {} };  // no usage yet: the result's own, once finished
  }

  function onEvent(event, data) {
    if (event === "metadata") { run.id = data.run_id; return; }
    if (event === "error") { run.failed = sentence(data.message || data.error); return; }
    if (event === "values" && run.mode === "check") {  // the root graph's state (no namespace)
      if (typeof data.response === "string") run.response = data.response;
      if (typeof data.question === "string") run.question = data.question;
      if (Array.isArray(data.claims)) { run.claims = data.claims; run.total = data.claims.length; }
      if (Array.isArray(data.dropped)) run.dropped = data.dropped;
      return;
    }
    if (event.indexOf("custom") !== 0 || !data || typeof data !== "object") return;
    if (ANSWERS.indexOf(data.event) >= 0) run.answers += 1;
    if (data.event === "claims") run.total = data.count;
    if (data.event === "verdict") {
      run.decided[data.claim_id] = { verdict: data.verdict, error: data.error || null,
        unchecked_reason: data.unchecked_reason || null };  // shown mid-run, as in the report
      if (run.mode === "check") draw(soFar(), "check");
    }
    showProgress();
  }

  function setRunning(on) {
    startButton.disabled = on;
    stopButton.disabled = !on;
    if (on) clock = setInterval(showProgress, 1000);
    else clearInterval(clock);
  }

  function newRun(m, thread) {
    run = { mode: m, thread: thread, id: null, decided: {}, total: m === "check" ? null : 1, answers: 0,
      started: Date.now(), ended: null, stopped: false, failed: null, result: null, html: null };
    $("run").hidden = false;
    $("run").dataset.thread = thread;
    $("run").scrollIntoView({ block: "start" });  // the marks, not the form, are what comes next
    frame.srcdoc = "";
    ["dl-json", "dl-html"].forEach(function (id) { $(id).disabled = true; });
  }

  // The finished run's result from its thread, drawn; downloads open.
  function showResult(thread, kind) {
    return fetch("/ui/threads/" + encodeURIComponent(thread) + "/result")
      .then(function (r) { return r.ok ? r.json() : refusal(r); })
      .then(function (result) {
        run.result = result;
        if (kind === "check") {
          run.decided = {};
          result.claims.forEach(function (c) { run.decided[c.id] = c; });
          run.total = result.claims.length;
        } else {
          run.decided = { result: result };
        }
        return draw(result, kind);
      })
      .then(function () { ["dl-json", "dl-html"].forEach(function (id) { $(id).disabled = false; }); });
  }

  function start(e) {
    e.preventDefault();
    var m = mode(), body = text.value, asked = question.value;
    if (!body.trim()) {
      say(m === "check" ? "Paste a text or drop a file first: there is nothing to check."
        : m === "verify" ? "Write the claim to verify first." : "Write the answer to check first.");
      return text.focus();
    }
    if (m === "detect" && !asked.trim()) { say("Detect needs the question the answer answers."); return question.focus(); }
    say("");
    progress.textContent = "Starting…";
    setRunning(true);
    var context = settings(m);
    if (m === "verify" && evidence.value.trim() && !("search" in context)) context.search = "given";
    api("/threads", { metadata: { made_by: MADE_BY, mode: m, title: body.slice(0, 80) } })
      .then(function (r) { return r.json(); })
      .then(function (thread) {
        newRun(m, thread.thread_id);
        showProgress();
        return api("/threads/" + thread.thread_id + "/runs/stream", {
          assistant_id: GRAPHS[m], input: payload(m, body, asked), context: context,
          stream_mode: ["values", "custom"], stream_subgraphs: true, on_disconnect: "cancel"
        });
      })
      .then(function (response) { return stream(response, function (ev, data) { if (run) onEvent(ev, data); }); })
      .then(function () {
        run.ended = Date.now();
        if (run.stopped) {
          say("Stopped on the server: what was decided before is shown.");
        } else if (run.failed) {
          say("The run failed: " + run.failed + (Object.keys(run.decided).length ? " What finished is shown." : ""));
        } else {
          return showResult(run.thread, run.mode);
        }
      })
      .catch(function (err) {
        if (run) { run.ended = run.ended || Date.now(); run.failed = err.message; }
        say(err.message);
      })
      .then(function () { setRunning(false); showProgress(); listRuns(); });
  }
  form.addEventListener("submit", start);

  stopButton.addEventListener("click", function () {
    if (!run || !run.id) return;
    run.stopped = true;
    stopButton.disabled = true;
    api("/threads/" + run.thread + "/runs/" + run.id + "/cancel?action=interrupt", {})
      .catch(function (err) { say(err.message); });
  });

  // ------------------------------------------------------------------ downloads

  function download(content, type, name) {
    var link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([content], { type: type }));
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () { URL.revokeObjectURL(link.href); }, 1000);
  }
  $("dl-json").addEventListener("click", function () {
    download(JSON.stringify(run.result, null, 2), "application/json", "factcourt-" + run.mode + "-" + run.thread + ".json");
  });
  $("dl-html").addEventListener("click", function () {
    download(run.html, "text/html", "factcourt-" + run.mode + "-" + run.thread + ".html");
  });

  // ------------------------------------------------------------------ recent runs

  function listRuns() {
    return api("/threads/search", { metadata: { made_by: MADE_BY }, limit: 20, sort_by: "created_at", sort_order: "desc" })
      .then(function (r) { return r.json(); })
      .then(function (threads) {
        var list = $("recent");
        list.textContent = "";
        threads.forEach(function (t) {
          var meta = t.metadata || {};
          var item = document.createElement("li");
          var open = document.createElement("button");
          open.type = "button";
          open.dataset.thread = t.thread_id;
          open.dataset.mode = meta.mode || "check";
          open.textContent = meta.title || t.thread_id;
          var when = document.createElement("span");
          when.className = "when muted small";
          when.textContent = (meta.mode || "") + " · " + new Date(t.created_at).toLocaleString() + " · " + t.status;
          item.appendChild(open);
          item.appendChild(when);
          list.appendChild(item);
        });
        if (!threads.length) list.textContent = "No run yet.";
      })
      .catch(function (err) { say(err.message); });
  }
  $("refresh").addEventListener("click", listRuns);
  $("recent").addEventListener("click", function (e) {
    var open = e.target.closest("button[data-thread]");
    if (!open || !stopButton.disabled) return;
    say("");
    newRun(open.dataset.mode, open.dataset.thread);
    run.ended = Date.now();
    showResult(run.thread, run.mode)
      .catch(function (err) { say(err.message); })
      .then(function () { progress.textContent = "Reopened: " + open.textContent; });
  });
  listRuns();
})();
