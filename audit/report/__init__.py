"""The audit report as text and HTML, and the score sheet as text.

Above the checks and the stacking detector: it renders what they found.
"""

__all__ = ["REPORT_FORMAT"]

REPORT_FORMAT = "cayenne-audit-report/1"
"""The ``format`` of every audit report (docs/audit-report.md), the Python auditor's and
the native fast path's alike."""
