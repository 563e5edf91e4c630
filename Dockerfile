# Napkin Games as a container: `napkin run` on a slim Python, as a user without privileges. Every setting comes from
# the environment (docs/operating.md has them all); compose.yaml runs two of these on PostgreSQL.
#
#   docker build --build-arg NAPKIN_COMMIT=$(git rev-parse HEAD) -t napkin-games .
#   docker run --env DISCORD_TOKEN=... --volume napkin-data:/data napkin-games
#   docker run --rm --env DISCORD_TOKEN=... napkin-games invite-url
#
# Built from pinned inputs only: the base image by its digest (python:3.11-slim as published under that digest; a
# newer one is taken on purpose, by changing the digest here), and the Python packages from requirements.lock, each
# at one version with its hashes (`make lock` writes it from pyproject.toml; tests/ops/test_container.py keeps the
# two in step). Debian's fonts come from the base image's release.
FROM python:3.11-slim@sha256:9c900dea9e8fb7e16277c179b555cc72d29a352dbc33cff48ad5a0412fd5bfc7

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# DejaVu draws member names in Greek, Cyrillic and accented Latin on the boards.
RUN apt-get update \
    && apt-get install -y --no-install-recommends fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src
# Every dependency, the build's own included, at the version and with the hashes the lock file names: pip refuses
# anything else. Then the bot itself, with nothing more fetched.
COPY requirements.lock ./
RUN pip install --require-hashes --no-deps -r requirements.lock
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY games ./games
COPY renderers ./renderers
COPY storage ./storage
COPY i18n ./i18n
RUN pip install --no-deps --no-build-isolation . && pip check

# The commit this image was built from (napkin --version, napkin_build_info); "unknown" unless the build names it.
ARG NAPKIN_COMMIT=unknown
ENV NAPKIN_COMMIT=$NAPKIN_COMMIT

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
