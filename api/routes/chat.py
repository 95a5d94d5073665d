"""A table's chat (:mod:`api.chat`): read it, and post a message its writer signed."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from api.routes import json_body, services
from api.routes.tournaments import guard_table
from api.schemas import HEX32, OBJ, Schema, spec

__all__ = ["CHAT", "MESSAGE_EVENT", "bp", "get_chat", "post_chat"]

bp = Blueprint("chat", __name__)

MESSAGE_EVENT: Schema = {
    "type": "object",
    "description": "A chat event of the log's format (docs/log.md) signed by a player seated "
    'at the table: hand "chat", seq and prev the chat chain\'s next (GET .../chat), body '
    "{text}: 1 to 300 characters, no control character (audit/log/schema/chat.json)",
    "required": [
        "v",
        "origin",
        "table",
        "hand",
        "seq",
        "prev",
        "actor",
        "key",
        "type",
        "body",
        "signature",
    ],
    "properties": {
        "hand": {"const": "chat"},
        "type": {"const": "chat"},
        "body": {
            "type": "object",
            "required": ["text"],
            "properties": {"text": {"type": "string", "minLength": 1, "maxLength": 300}},
        },
    },
}
CHAT: Schema = {
    "type": "object",
    "required": ["table", "enabled", "next_seq", "last_hash", "messages"],
    "properties": {
        "table": {"type": "string"},
        "enabled": {"type": "boolean"},
        "next_seq": {"type": "integer"},
        "last_hash": {"type": ["string", "null"]},
        "messages": {"type": "array", "items": OBJ},
    },
}
POSTED: Schema = {
    "type": "object",
    "required": ["seq", "hash", "next_seq", "last_hash"],
    "properties": {
        "seq": {"type": "integer"},
        "hash": HEX32,
        "next_seq": {"type": "integer"},
        "last_hash": HEX32,
    },
}


@bp.get("/v1/tables/<table_id>/chat")
@spec("The table's chat: whether it is on, its head, its latest 100 messages", response=CHAT)
def get_chat(table_id: str) -> Response:
    guard_table(table_id)  # an event's private table: its players and the directors
    return jsonify(services().chat.read(table_id))


@bp.post("/v1/tables/<table_id>/chat")
@spec(
    "Post a message to the whole table, signed by a player seated there (never to one seat)",
    body=MESSAGE_EVENT,
    status=201,
    response=POSTED,
    errors=(401, 403, 409, 429),
)
def post_chat(table_id: str) -> tuple[Response, int]:
    return jsonify(services().chat.post(table_id, json_body("event"))), 201
