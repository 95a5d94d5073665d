"""The HTTP service: certified online tables, private hands, audit reports and log proofs.

:func:`create_app` builds the Flask application from a :class:`api.config.Config` (or a
mapping of settings); ``fairplay serve`` runs it under gunicorn. See docs/api.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jinja2
from flask import Flask

from api.analysis import Analyses
from api.certificate import Certificates
from api.chat import TableChat
from api.clock_runner import ClockRunner
from api.config import Config, load_config
from api.database import Database
from api.errors import register_error_handlers
from api.hand_log import HandLog
from api.inputs import check_request
from api.migrations import migrate
from api.room import Room
from api.room.repair import recover
from api.rows import now_iso
from api.services import Services
from api.tournament import Tournaments
from api.tournament.event_rows import read as read_event
from api.witnesses import WitnessBook
from audit.report.html import template_loader

__all__ = ["Services", "create_app"]


def create_app(config: Mapping[str, Any] | Config | None = None) -> Flask:
    """The application for ``config`` (defaults, then ``FAIRPLAY_*`` variables, then it)."""
    cfg = load_config(config)
    app = Flask(__name__, static_folder=None)
    # A table's own name, "" for the API's default ("table"): "Table table" reads badly
    # (api/static/js/people.js shownTableName does the same in the pages' redraws).
    app.jinja_env.filters["own_name"] = lambda name: "" if str(name).lower() == "table" else name
    # The pages import the hand diagram and trick table macros the audit report uses.
    app.jinja_loader = jinja2.ChoiceLoader(
        [jinja2.FileSystemLoader(app.root_path + "/templates"), template_loader()]
    )
    app.config["MAX_CONTENT_LENGTH"] = cfg.max_body
    app.config["TESTING"] = cfg.testing
    app.json.sort_keys = False  # type: ignore[attr-defined]
    db = Database(cfg.resolved_database_url)
    migrate(db)
    hand_log = HandLog(cfg, db.url)
    hand_log.witnesses = WitnessBook(db, hand_log.log, cfg.witness_keys)

    def clock() -> str:
        return now_iso(cfg.clock())  # the time as rows keep it

    # A finished event's certificate bundle and analysis, built off the request path.
    certificates = Certificates(db, hand_log, clock, read_event)
    analyses = Analyses(
        db, clock, read_event, cfg.analysis_from_card, seen_draws=cfg.analysis_seen_draws
    )

    def ended(tid: str) -> None:
        """The event is over (or found over at start-up): build what it yields."""
        certificates.builds.begin(tid)
        analyses.builds.begin(tid)

    # The room hands the end of an event table's hand to the event (Tournaments), which
    # opens the next board in the room: the room makes it, given what it needs.
    room = Room(
        db,
        cfg,
        hand_log,
        owner=lambda room: Tournaments(room, db, hand_log, cfg, ended),
    )
    events = room.owner
    assert isinstance(events, Tournaments)
    recover(room)  # rows the log is ahead of, after a crash (api/room/repair.py)
    events.recover()  # then the events whose tables those hands are
    table_chat = TableChat(room)  # on at a table, at an event's if it says so
    seats_clock = ClockRunner(room, cfg.clock_tick)  # the seats' clocks (api/clock.py)
    app.extensions["fairplay"] = Services(
        cfg, db, hand_log, room, events, certificates, analyses, table_chat, seats_clock
    )
    register_error_handlers(app)
    app.before_request(check_request)  # path and query text (api/inputs.py)
    # The builds the start-up repair found start once this process serves.
    app.before_request(certificates.builds.serving)
    app.before_request(analyses.builds.serving)
    app.before_request(seats_clock.serving)  # the clock runs once this process serves

    from api.routes import (
        audits,
        chat,
        directors,
        hands,
        log,
        meta,
        pages,
        people,
        play,
        players,
        tables,
        tournaments,
    )
    from api.routes.tournament_pages import bp as tournament_pages

    for module in (
        meta,
        players,
        tables,
        hands,
        audits,
        log,
        pages,
        play,
        people,
        tournaments,
        directors,
        chat,
    ):
        app.register_blueprint(module.bp)
    app.register_blueprint(tournament_pages)  # the event's pages (issue 12)
    from api.routes.entrants import bp as entrants

    app.register_blueprint(entrants)  # an entrant's invitations and withdrawal (issue 20)
    from api.routes.analysis import bp as analysis

    app.register_blueprint(analysis)  # the double-dummy analysis of an event (issue 22)
    return app
