"""The queries, one module per aggregate, as lichess keeps a repository per collection.

- :mod:`~storage.queries.matches`: a match with its seats, move log and conditional moves (what one move changes
  together), and the deadlines read from it;
- :mod:`~storage.queries.challenges`: open challenges until accepted, declined or expired;
- :mod:`~storage.queries.ratings`: ratings per server, game and member, and the leaderboards over them;
- :mod:`~storage.queries.outbox`: news still to deliver, and the leases that share work between processes;
- :mod:`~storage.queries.members`: a member's preferences and vacations;
- :mod:`~storage.queries.settings`: a server's settings and the bot's own keys;
- :mod:`~storage.queries.tournaments`: tournaments with their entrants, rounds, boards and news to post;
- :mod:`~storage.queries.seasons`: each member's record per season, and a season's standings.

Each holds a ``…Reads`` class and a ``…Writes`` class over :class:`~storage.queries.base.Queries`;
:mod:`storage.tx` composes them into the transactions a body receives.
"""
