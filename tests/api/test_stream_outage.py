"""A table's stream through a database outage, in one process (api/sse.py): the
outage may come while a state is rendered (the hand read again for its JSON) as well as
while the table is read; either way the stream says so and goes on, never ends."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from api.bot import TableBots
from api.sse import messages
from audit.log.reconnect import unavailable
from tests.api.conftest import Running


def test_an_outage_while_a_state_is_rendered_keeps_the_stream(
    make_service: Callable[..., Running],
) -> None:
    service = make_service()
    bots = TableBots.open(service.client(), random.Random(1), name="render")
    room = service.app.extensions["fairplay"].room
    rendered: list[int] = []

    def render(table: Any, number: int, new: bool) -> dict[str, Any]:
        rendered.append(number)
        if len(rendered) == 1:  # the database goes away as the first state is drawn
            raise unavailable("service's", None, 1)
        return {"hand": number, "new": new}

    stream = messages(room, bots.table, {"table": bots.table}, render, seconds=30)
    said = [next(stream) for _ in range(4)]
    assert said[0].startswith("retry:") and said[1].startswith("event: table")
    assert said[2] == ": database unavailable\n\n"
    assert said[3].startswith("id: 1:") and "event: state" in said[3]
    assert '"new":true' in said[3]  # the first state, sent once it could be drawn
    assert rendered == [1, 1]
    stream.close()
