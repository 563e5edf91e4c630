"""Running the bot as a service: what an admin sees and controls from outside its code.

- :mod:`bot.ops.context`: the shard, server, match and command an interaction is about, as context variables that
  every log line written while handling it carries.
- :mod:`bot.ops.logs`: text or JSON log lines (``NAPKIN_LOG_FORMAT``).
- :mod:`bot.ops.interactions`: the client's one door for interactions: counts those under way, refuses new ones
  while the bot stops, and records each one's outcome.
- :mod:`bot.ops.metrics`: the bot's Prometheus metrics, ``/healthz`` and ``/metrics`` (``NAPKIN_METRICS_ADDR``).
- :mod:`bot.ops.stopping`: SIGTERM and SIGINT stop the bot cleanly within a bound; a second signal at once.
- :mod:`bot.ops.lifetime`: what ``napkin run`` and ``napkin play`` wrap the running bot in.
- :mod:`bot.ops.invite`: the bot's OAuth2 invite address, from the one list of permissions it needs.
"""
