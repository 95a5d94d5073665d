"""What a request handler needs: the process's configuration, database, hand log, rooms and events.

:func:`api.create_app` builds one :class:`Services` and attaches it to the application
(``app.extensions["fairplay"]``); the routes read it with :func:`api.routes.services`.
It lives apart from :func:`api.create_app`, which imports the routes, so that the routes
can name its type without importing the application factory.
"""

from __future__ import annotations

from api.analysis import Analyses
from api.certificate import Certificates
from api.chat import TableChat
from api.config import Config
from api.database import Database
from api.hand_log import HandLog
from api.room import Room
from api.tournament import Tournaments

__all__ = ["Services"]


class Services:
    """What a request handler needs, attached to the app."""

    def __init__(
        self,
        config: Config,
        db: Database,
        hand_log: HandLog,
        room: Room,
        tournaments: Tournaments,
        certificates: Certificates,
        analyses: Analyses,
        chat: TableChat,
    ) -> None:
        self.config = config
        self.db = db
        self.hand_log = hand_log
        self.room = room
        self.tournaments = tournaments
        self.certificates = certificates
        """The finished events' certificate bundles, built off the request path."""
        self.analyses = analyses
        """The finished events' double-dummy analyses, built off the request path."""
        self.chat = chat
        """The tables' chat (api/chat.py)."""

    def close(self) -> None:
        """Close this process's connections (before a fork, or at shutdown); stop streams
        and wait for the builds under way (certificates, analyses)."""
        self.room.changes.close()
        self.certificates.builds.close()
        self.analyses.builds.close()
        self.db.close()
        self.hand_log.close()
