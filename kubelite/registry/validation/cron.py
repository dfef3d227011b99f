"""CronJob schedules, checked as kube checks them: with robfig/cron v3's standard parser (`kubelite.util.cron`,
which the CronJob controller runs too), whose error texts become the validation message (`expected exactly 5
fields, found 4: [* * * *]`, `end of range (60) above maximum (59): 60`, ...).
"""

from __future__ import annotations

from kubelite.util.cron import CronError, parse_standard


def schedule_error(spec: str) -> str | None:
    """The message kube reports for an invalid schedule, or None."""
    try:
        parse_standard(spec)
    except CronError as exc:
        return str(exc)
    return None
