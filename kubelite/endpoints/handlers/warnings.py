"""`Warning` response headers as kube writes them: `299 - "<text>"`, each text once, and all of them
within kube's budget, so that no warning can break or bloat the response of a committed write.

kube's warning recorder writes texts in full while they add up to 4,096 runes; past that it starts over
with every text cut to 256 runes and stops adding once the budget is spent. Texts are quoted with `"`
and `\\` escaped. A control character kube would not send at all (its header writer drops such a text;
its decoders quote field names with Go's %q, so none reaches it); kubelite writes it escaped as %q does.
"""

from __future__ import annotations

import re

from kubelite.apimachinery import gofmt

#: kube's warning recorder: runes of warning text written in full, then the length each is cut to
TOTAL_RUNES = 4 * 1024
ITEM_RUNES = 256

_HEADER = re.compile(r'(\d{3}) (\S+) "(.*)"', re.DOTALL)
_QUOTED = re.compile(r'\\(["\\])')
#: C0 controls, DEL and C1 controls (Go's unicode.IsControl)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def _escape_control(match: re.Match[str]) -> str:
    return gofmt.escape_rune(match.group())


def format_warning(text: str, agent: str = "-") -> str:
    quoted = text.replace("\\", "\\\\").replace('"', '\\"')
    if _CONTROL.search(quoted) is not None:
        quoted = _CONTROL.sub(_escape_control, quoted)
    return f'299 {agent} "{quoted}"'


def _parts(header: str) -> tuple[str, str]:
    """The agent and the text of a header written as `299 - "<text>"`."""
    match = _HEADER.fullmatch(header)
    if match is None:
        return "-", header
    return match.group(2), _QUOTED.sub(r"\1", match.group(3))


def warning_headers(warnings: list[str]) -> list[str]:
    """The headers to send for `warnings` (header values, `299 - "<text>"`), as kube's recorder sends them."""
    if sum(map(len, warnings)) <= TOTAL_RUNES and all(_CONTROL.search(w) is None for w in warnings):
        return list(dict.fromkeys(warnings))  # the common case: a few short texts, written as they are
    recorded: list[tuple[str, str]] = []
    seen: set[str] = set()
    headers: list[str] = []
    written = 0
    truncating = False
    for agent, text in map(_parts, warnings):
        if not text or text in seen:
            continue
        if truncating and written >= TOTAL_RUNES:
            break
        seen.add(text)
        recorded.append((agent, text))
        if truncating:
            text = text[:ITEM_RUNES]
        if written + len(text) <= TOTAL_RUNES or truncating:
            written += len(text)
            headers.append(format_warning(text, agent))
            continue
        # over budget: start again with every text so far cut short
        truncating = True
        written = 0
        headers = []
        for earlier_agent, earlier_text in recorded:
            cut = earlier_text[:ITEM_RUNES]
            written += len(cut)
            headers.append(format_warning(cut, earlier_agent))
    return headers


def safe_warning(header: str) -> str:
    """One header value with any control character escaped as Go's %q writes it."""
    agent, text = _parts(header)
    return format_warning(text, agent)
