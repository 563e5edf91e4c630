# Napkin Games as a container: `napkin run` on a slim Python, as a user without privileges. Every setting comes from
# the environment (docs/operating.md has them all); compose.yaml runs two of these on PostgreSQL.
#
#   docker build -t napkin-games .
#   docker run --env DISCORD_TOKEN=... --volume napkin-data:/data napkin-games
#   docker run --rm --env DISCORD_TOKEN=... napkin-games invite-url
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# DejaVu draws member names in Greek, Cyrillic and accented Latin on the boards.
RUN apt-get update \
    && apt-get install -y --no-install-recommends fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY games ./games
COPY renderers ./renderers
COPY storage ./storage
RUN pip install '.[postgres]'

RUN useradd --create-home --uid 10001 napkin && mkdir /data && chown napkin /data
USER napkin
WORKDIR /data
VOLUME /data

# The SQLite file lives in the volume unless NAPKIN_DATABASE names a PostgreSQL database; logs are JSON lines;
# /healthz and /metrics answer on every interface of the container, port 9108.
ENV NAPKIN_DATABASE=/data/napkin.db \
    NAPKIN_LOG_FORMAT=json \
    NAPKIN_METRICS_ADDR=0.0.0.0:9108
EXPOSE 9108

HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:9108/healthz', timeout=4)"]

# SIGTERM (docker stop) lets the interactions under way finish (NAPKIN_STOP_SECONDS, 10 s) before the bot stops:
# give the container at least 15 s (docker stop --time 20, compose's stop_grace_period).
STOPSIGNAL SIGTERM
ENTRYPOINT ["napkin"]
CMD ["run"]
