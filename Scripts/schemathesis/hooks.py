"""Schemathesis hooks for fleetd's OpenAPI documents.

- The only `date-time` members a client sends are service dates, which must not lie in the future (the documents
  say so; JSON Schema cannot). Valid examples are therefore drawn from the past, in UTC and in other offsets, with
  and without fractional seconds. Invalid examples (wrong types, malformed strings) come from Schemathesis as usual.
- Schemathesis's coverage phase generates header values from letters and digits only, so it cannot build a valid
  `If-Match` (an entity tag is quoted: `"3"`). For this optional header it then puts the invalid value it made
  instead into the case it labels as the valid one, and reports the daemon's 400 as a valid request refused. A
  case labelled valid whose `If-Match` breaks the documented pattern is sent without the header, which is the
  valid request that case stands for; cases labelled invalid keep their header and must still be refused.
"""

import re
from datetime import datetime, timedelta, timezone

import schemathesis
from hypothesis import strategies as st
from schemathesis import GenerationMode

_offsets = st.sampled_from(
    [timezone.utc, timezone(timedelta(hours=2)), timezone(timedelta(hours=-5, minutes=-30)), timezone(timedelta(hours=14))]
)
_moments = st.datetimes(
    min_value=datetime(1886, 1, 1),
    max_value=datetime(2020, 12, 31),
    timezones=_offsets,
)
_precision = st.sampled_from(["seconds", "milliseconds", "microseconds"])


def _render(moment: datetime, precision: str) -> str:
    text = moment.isoformat(timespec=precision)
    return text[:-6] + "Z" if text.endswith("+00:00") else text


schemathesis.openapi.format("date-time", st.builds(_render, _moments, _precision))


# The `If-Match` pattern of fleet-v2.json (updateVehicleV2, deleteVehicleV2).
_IF_MATCH = re.compile(r'^(\*|"[1-9][0-9]{0,17}")$')


@schemathesis.hook
def before_call(context, case, **kwargs):
    meta = case.meta
    if meta is None or meta.generation.mode != GenerationMode.POSITIVE or not case.headers:
        return
    value = case.headers.get("If-Match")
    if value is not None and not _IF_MATCH.match(str(value)):
        del case.headers["If-Match"]
