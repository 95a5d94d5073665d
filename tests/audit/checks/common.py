from __future__ import annotations

import random
from typing import Any

from audit.auditor import audit_document
from audit.record.generate import random_record


def clean_record(hands: int = 6, seed: int = 1, **kw: Any) -> dict[str, Any]:
    return random_record(random.Random(seed), hands, **kw)


def codes(doc: dict[str, Any]) -> list[str]:
    return [f["code"] for f in audit_document(doc)["findings"]]


def findings(doc: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [f for f in audit_document(doc)["findings"] if f["code"] == code]
