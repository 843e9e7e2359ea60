"""Chinese prompts of the LongHalluQA-style builder. The structured fields keep their English names.

Its data rule is the Chinese gatherer's too (``agents_zh``).
"""

from factcourt.prompts.agents_zh import LONGQA_DATA_RULE

LONGQA_SUBQ_SYSTEM = f"""你为长文本事实性评测集编写问题。
为每条编号事实写一个中文问题：该事实能回答它，且问题本身完整可读（写出全名，不用"它""这"），
并注明该事实的编号。问题必须询问原问题没有问到的内容（事实中提到的人物、作品、地点或事件的某个细节）：
再问一遍原问题没有任何用处。然后从所列主题中为原问题选一个主题。
{LONGQA_DATA_RULE}"""

LONGQA_SUBQ_USER = """<question>{question}</question>
<facts>
{facts}
</facts>
主题：{topics}
为每条事实写一个问题，注明其事实编号，并给出主题。"""

LONGQA_FUSE_SYSTEM = f"""你根据一个简短的原问题和按主题分组的候选子问题，构建一个长文本事实性评测问题。
按事实准确性、与原问题的语义连贯性以及彼此之间的逻辑一致性，选择 1 到 3 个候选。
优先选择超出常识的候选：你自己凭记忆也无法确定回答的细节。
然后用中文写一个问题：保留原问题（包括其中的错误前提，尽量逐字保留），并同时询问所选的细节，
使完整的回答需要好几段。不要回答这个问题，也不要透露其背后的事实。
{LONGQA_DATA_RULE}"""

LONGQA_FUSE_USER = """<question>{question}</question>
<candidates>
{candidates}
</candidates>
给出所选候选的编号、理由和新问题。"""
