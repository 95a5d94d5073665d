"""The tournament layer: movements, board scoring, matchpoints and standings, and the
event-wide audit of an event played over the table (docs/tournaments.md).

One topic per module, pure functions over typed values:

- :mod:`~audit.tournament.movement`: the Mitchell and the rubber round robin;
- :mod:`~audit.tournament.boardscore`: the score of a duplicate board at a table;
- :mod:`~audit.tournament.matchpoints`: matchpoints, Neuberg, adjusted scores;
- :mod:`~audit.tournament.standings`: percentages, places, rubber match values;
- :mod:`~audit.tournament.event`: reading the records of one event;
- :mod:`~audit.tournament.eventaudit`: fouled boards and stacking across the event;
- :mod:`~audit.tournament.score`: the whole event scored (``cayenne-standings/1``).
"""

__all__: list[str] = []
