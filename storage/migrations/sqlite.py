"""The SQLite text of every schema migration: ``MIGRATIONS[i]`` brings a database from version ``i`` to ``i + 1``
(see :mod:`storage.migrations`; :mod:`storage.migrations.postgres` has the same migrations for PostgreSQL).
"""

from __future__ import annotations

_TERMINATION = """CASE
        WHEN status = 'aborted' THEN 'aborted'
        WHEN end_reason LIKE '% resigned' THEN 'resigned'
        WHEN end_reason LIKE '% ran out of time' THEN 'out_of_time'
        WHEN end_reason LIKE '%draw agreed%' THEN 'draw_agreed'
        WHEN end_reason LIKE '%third repetition%' THEN 'repetition'
        WHEN end_reason LIKE '%200 plies%' THEN 'move_limit'
        ELSE 'natural'
    END"""
"""The termination (``games.outcome.Termination`` value) of a version-1 row, read from its prose ``end_reason``:
``"<name> resigned"``, ``"<name> ran out of time"``, ``"draw agreed"``, Chopsticks' ``"third repetition"`` and
``"200 plies"``; every other reason was a game's own end."""

_LOSER = """CASE WHEN end_reason LIKE '% resigned' OR end_reason LIKE '% ran out of time' THEN
        (SELECT MIN(seat) FROM seats
         WHERE seats.match_id = matches.id AND seat IS NOT json_extract(outcome, '$.winner'))
    END"""
"""The seat that resigned or ran out of time: the one that is not the winner (solitaire: the only seat)."""

_STATE_OUTCOME_TERMINATION = """CASE
        WHEN json_extract(state, '$.outcome.reason') LIKE '%third repetition%' THEN 'repetition'
        WHEN json_extract(state, '$.outcome.reason') LIKE '%200 plies%' THEN 'move_limit'
        ELSE 'natural'
    END"""
"""A rules-core outcome kept inside a stored state only ever records the game's own ends."""

MIGRATIONS: tuple[str, ...] = (
    # 1: the whole first schema.
    """
    CREATE TABLE guild_settings (
        guild_id          INTEGER PRIMARY KEY,
        days_per_move     INTEGER NOT NULL DEFAULT 3 CHECK (days_per_move IN (0, 1, 2, 3, 5, 7, 14)),
        use_threads       INTEGER NOT NULL DEFAULT 1 CHECK (use_threads IN (0, 1)),
        allowed_channels  TEXT    NOT NULL DEFAULT '[]',
        max_active        INTEGER NOT NULL DEFAULT 25 CHECK (max_active BETWEEN 1 AND 100),
        rate_computer     INTEGER NOT NULL DEFAULT 0 CHECK (rate_computer IN (0, 1)),
        updated_at        REAL
    );

    CREATE TABLE matches (
        id              INTEGER PRIMARY KEY,
        guild_id        INTEGER NOT NULL,
        channel_id      INTEGER NOT NULL,
        thread_id       INTEGER,
        game            TEXT    NOT NULL,
        variant         TEXT    NOT NULL,
        initial_state   TEXT    NOT NULL,
        state           TEXT    NOT NULL,
        status          TEXT    NOT NULL CHECK (status IN ('active', 'finished', 'aborted')),
        version         INTEGER NOT NULL DEFAULT 0,
        ply             INTEGER NOT NULL DEFAULT 0,
        current_seat    INTEGER,
        days_per_move   INTEGER NOT NULL DEFAULT 0,
        deadline        REAL,
        reminded        INTEGER NOT NULL DEFAULT 0,
        draw_offer_seat INTEGER,
        outcome         TEXT,
        end_reason      TEXT,
        rated           INTEGER NOT NULL DEFAULT 1,
        created_at      REAL    NOT NULL,
        updated_at      REAL    NOT NULL,
        finished_at     REAL
    );
    CREATE INDEX matches_guild_status ON matches (guild_id, status);
    CREATE INDEX matches_deadline ON matches (deadline) WHERE status = 'active';
    CREATE INDEX matches_thread ON matches (thread_id);

    CREATE TABLE seats (
        match_id     INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
        seat         INTEGER NOT NULL CHECK (seat >= 0),
        user_id      INTEGER NOT NULL,
        display_name TEXT    NOT NULL,
        level        TEXT CHECK (level IS NULL OR level IN ('easy', 'medium', 'hard')),
        PRIMARY KEY (match_id, seat)
    );
    CREATE INDEX seats_user ON seats (user_id);

    CREATE TABLE moves (
        match_id   INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
        ply        INTEGER NOT NULL CHECK (ply >= 1),
        seat       INTEGER NOT NULL,
        notation   TEXT    NOT NULL,
        created_at REAL    NOT NULL,
        PRIMARY KEY (match_id, ply)
    );
    CREATE TRIGGER moves_append_only_update BEFORE UPDATE ON moves
        BEGIN SELECT RAISE(ABORT, 'moves are append-only'); END;

    CREATE TABLE challenges (
        id            INTEGER PRIMARY KEY,
        guild_id      INTEGER NOT NULL,
        channel_id    INTEGER NOT NULL,
        message_id    INTEGER,
        game          TEXT    NOT NULL,
        variant       TEXT    NOT NULL,
        challenger_id INTEGER NOT NULL,
        challenger_name TEXT  NOT NULL,
        opponent_id   INTEGER,
        days_per_move INTEGER NOT NULL DEFAULT 3,
        status        TEXT    NOT NULL CHECK (status IN ('open', 'accepted', 'declined', 'expired', 'cancelled')),
        match_id      INTEGER REFERENCES matches (id),
        created_at    REAL    NOT NULL,
        expires_at    REAL    NOT NULL
    );
    CREATE INDEX challenges_open ON challenges (expires_at) WHERE status = 'open';

    CREATE TABLE ratings (
        guild_id   INTEGER NOT NULL,
        game       TEXT    NOT NULL,
        user_id    INTEGER NOT NULL,
        display_name TEXT  NOT NULL,
        mu         REAL    NOT NULL,
        sigma      REAL    NOT NULL,
        games      INTEGER NOT NULL DEFAULT 0,
        wins       INTEGER NOT NULL DEFAULT 0,
        losses     INTEGER NOT NULL DEFAULT 0,
        draws      INTEGER NOT NULL DEFAULT 0,
        best_vs_par INTEGER,
        updated_at REAL    NOT NULL,
        PRIMARY KEY (guild_id, game, user_id)
    );

    CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    # 2: outcomes say how the match ended as a termination value instead of prose. A stored outcome becomes
    # {"winner", "draw", "scores", "termination", "loser"} (what games.Outcome.to_dict writes) and end_reason
    # the termination value; rules-core outcomes inside stored states get the same shape. Aborted matches get an
    # outcome with the termination "aborted" (no winner, no scores).
    f"""
    UPDATE matches SET
        outcome = CASE
            WHEN status = 'aborted' THEN json_object('winner', NULL, 'draw', json('false'), 'scores', NULL,
                                                     'termination', 'aborted', 'loser', NULL)
            WHEN outcome IS NOT NULL THEN
                json_remove(json_set(outcome, '$.termination', {_TERMINATION}, '$.loser', {_LOSER}), '$.reason')
        END,
        end_reason = {_TERMINATION}
    WHERE status IN ('finished', 'aborted');

    UPDATE matches SET state = json_set(state, '$.outcome', json(json_remove(
            json_set(json_extract(state, '$.outcome'), '$.termination', {_STATE_OUTCOME_TERMINATION}, '$.loser', NULL),
            '$.reason')))
    WHERE json_type(state, '$.outcome') = 'object';
    """,  # noqa: S608 - fixed migration text built from module constants
    # 3: each rated human's rating before and after a finished match (shown on its final board); the seat a
    # challenger takes (a rematch swaps the seats).
    """
    ALTER TABLE matches ADD COLUMN rating_changes TEXT;
    ALTER TABLE challenges ADD COLUMN challenger_seat INTEGER NOT NULL DEFAULT 0 CHECK (challenger_seat IN (0, 1));
    """,
    # 4: quarantine of damaged match rows (why the row cannot be loaded; NULL for a sound row), and the outbox of
    # news (reminders, results) the bot still has to deliver: a row is deleted once Discord took the message.
    """
    ALTER TABLE matches ADD COLUMN damage TEXT;

    CREATE TABLE outbox (
        id         INTEGER PRIMARY KEY,
        match_id   INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
        kind       TEXT    NOT NULL CHECK (kind IN ('reminder', 'result')),
        ply        INTEGER NOT NULL,
        attempts   INTEGER NOT NULL DEFAULT 0,
        next_at    REAL    NOT NULL,
        created_at REAL    NOT NULL,
        UNIQUE (match_id, kind, ply)
    );
    CREATE INDEX outbox_next ON outbox (next_at);
    """,
    # 5: indexes so that the work of the deadline pass, the leaderboards and /stats follows what they return, not
    # the size of the tables. matches_due orders active matches by the time something next falls due for them (the
    # reminder while not yet reminded, else the forfeit; storage.queries.matches._DUE_AT is the same expression,
    # which is how queries use it); ratings_rank and ratings_par hold each leaderboard in its order
    # (storage.queries.ratings's _RANK_ORDER, _PAR_ORDER); ratings_member finds a member's rows.
    """
    CREATE INDEX matches_due ON matches (
        (CASE WHEN reminded = 0 THEN deadline - days_per_move * 86400.0 / 3.0 ELSE deadline END), id)
        WHERE status = 'active' AND deadline IS NOT NULL;
    CREATE INDEX ratings_rank ON ratings (
        guild_id, game, (games < 5), (ROUND(1000 + 40 * (mu - 3 * sigma))) DESC, wins DESC, display_name, user_id,
        games, mu, sigma);
    CREATE INDEX ratings_par ON ratings (guild_id, game, best_vs_par, games DESC, display_name, user_id)
        WHERE best_vs_par IS NOT NULL;
    CREATE INDEX ratings_member ON ratings (guild_id, user_id, game);
    """,
    # 6: extra time given with /match give-time: how many times each seat gave its opponent a day, as a JSON list
    # of counts by seat ([0, 2]: seat 1 gave two days); NULL while nobody has given any.
    """
    ALTER TABLE matches ADD COLUMN time_given TEXT;
    """,
    # 7: correspondence comforts. A server's vacation allowance (days per member per calendar year, 0 = none); each
    # member's vacations per server (open while ended_at is NULL; ends_by is when the allowance runs out, days what
    # it cost once ended; at most one open per member and server); each member's preferences, global (a direct
    # message when it becomes their turn, and whether boards may ping them).
    """
    ALTER TABLE guild_settings ADD COLUMN vacation_days INTEGER NOT NULL DEFAULT 14
        CHECK (vacation_days BETWEEN 0 AND 365);

    CREATE TABLE vacations (
        id         INTEGER PRIMARY KEY,
        guild_id   INTEGER NOT NULL,
        user_id    INTEGER NOT NULL,
        started_at REAL    NOT NULL,
        ends_by    REAL    NOT NULL,
        ended_at   REAL,
        days       INTEGER CHECK (days IS NULL OR days >= 1),
        CHECK (ends_by > started_at),
        CHECK ((ended_at IS NULL) = (days IS NULL))
    );
    CREATE UNIQUE INDEX vacations_open ON vacations (guild_id, user_id) WHERE ended_at IS NULL;
    CREATE INDEX vacations_member ON vacations (guild_id, user_id, started_at);
    CREATE INDEX vacations_due ON vacations (ends_by, id) WHERE ended_at IS NULL;

    CREATE TABLE member_prefs (
        user_id    INTEGER PRIMARY KEY,
        dm_turns   INTEGER NOT NULL DEFAULT 0 CHECK (dm_turns IN (0, 1)),
        pings      INTEGER NOT NULL DEFAULT 1 CHECK (pings IN (0, 1)),
        updated_at REAL    NOT NULL
    );
    """,
    # 8: conditional moves (/match premove). A row is one line of the waiting seat: if the opponent plays if_move
    # in the position at ply, that seat answers reply; then_if/then_reply is the line's optional deeper pair (both
    # or neither). Moves are the games' canonical notation. One line per expected move; a match's lines are
    # deleted when it ends, and a seat's lines when the opponent moves.
    """
    CREATE TABLE premoves (
        match_id   INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
        seat       INTEGER NOT NULL CHECK (seat >= 0),
        ply        INTEGER NOT NULL CHECK (ply >= 0),
        if_move    TEXT    NOT NULL,
        reply      TEXT    NOT NULL,
        then_if    TEXT,
        then_reply TEXT,
        created_at REAL    NOT NULL,
        PRIMARY KEY (match_id, seat, if_move),
        CHECK ((then_if IS NULL) = (then_reply IS NULL))
    );
    """,
    # 9: what makes the start-up resumption of computer turns and the leaderboards cost what they return. A match's
    # computer_seats holds its computer seats as bits (seat 0 is 1, seat 1 is 2; 0 for none), set when it starts
    # (its seats never change), so that the partial index matches_computer_turn holds exactly the active matches
    # whose seat to move is the computer's. leaderboard_sizes holds how many rows each board (a server and a
    # ratings key) ranks: ranked, every row (a duel board); with_par, those with a result against par (a solitaire
    # board); triggers on ratings keep it, whatever writes a rating, so a page needs no count of the whole board.
    """
    ALTER TABLE matches ADD COLUMN computer_seats INTEGER NOT NULL DEFAULT 0;
    UPDATE matches SET computer_seats = (SELECT SUM(1 << seat) FROM seats
                                         WHERE seats.match_id = matches.id AND seats.level IS NOT NULL)
        WHERE id IN (SELECT match_id FROM seats WHERE level IS NOT NULL);
    CREATE INDEX matches_computer_turn ON matches (id)
        WHERE status = 'active' AND (computer_seats >> current_seat) & 1 = 1;

    CREATE TABLE leaderboard_sizes (
        guild_id INTEGER NOT NULL,
        game     TEXT    NOT NULL,
        ranked   INTEGER NOT NULL CHECK (ranked >= 0),
        with_par INTEGER NOT NULL CHECK (with_par >= 0),
        PRIMARY KEY (guild_id, game)
    );
    INSERT INTO leaderboard_sizes (guild_id, game, ranked, with_par)
        SELECT guild_id, game, COUNT(*), COUNT(best_vs_par) FROM ratings GROUP BY guild_id, game;
    CREATE TRIGGER ratings_sized_insert AFTER INSERT ON ratings BEGIN
        INSERT INTO leaderboard_sizes (guild_id, game, ranked, with_par)
            VALUES (new.guild_id, new.game, 1, new.best_vs_par IS NOT NULL)
            ON CONFLICT (guild_id, game) DO UPDATE SET ranked = ranked + 1, with_par = with_par + excluded.with_par;
    END;
    CREATE TRIGGER ratings_sized_delete AFTER DELETE ON ratings BEGIN
        UPDATE leaderboard_sizes SET ranked = ranked - 1, with_par = with_par - (old.best_vs_par IS NOT NULL)
            WHERE guild_id = old.guild_id AND game = old.game;
    END;
    CREATE TRIGGER ratings_sized_update AFTER UPDATE OF guild_id, game, best_vs_par ON ratings
        WHEN old.guild_id != new.guild_id OR old.game != new.game
             OR (old.best_vs_par IS NULL) != (new.best_vs_par IS NULL) BEGIN
        UPDATE leaderboard_sizes SET ranked = ranked - 1, with_par = with_par - (old.best_vs_par IS NOT NULL)
            WHERE guild_id = old.guild_id AND game = old.game;
        INSERT INTO leaderboard_sizes (guild_id, game, ranked, with_par)
            VALUES (new.guild_id, new.game, 1, new.best_vs_par IS NOT NULL)
            ON CONFLICT (guild_id, game) DO UPDATE SET ranked = ranked + 1, with_par = with_par + excluded.with_par;
    END;
    """,
    # 10: news Discord refuses for good (no access to the match's channel, or the channel is gone) is given up after
    # a few tries and kept as given up, with what Discord said; only pending news is claimed (the partial index). And
    # the challenges one member sent another, by time: at most a few an hour count against the challenger.
    """
    ALTER TABLE outbox ADD COLUMN status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'given_up'));
    ALTER TABLE outbox ADD COLUMN last_error TEXT;
    DROP INDEX outbox_next;
    CREATE INDEX outbox_next ON outbox (next_at) WHERE status = 'pending';
    CREATE INDEX challenges_pair ON challenges (guild_id, challenger_id, opponent_id, created_at);
    """,
    # 11: the computer's ``perfect`` level (where a game is solved) may sit in a seat. SQLite cannot change a CHECK in
    # place: the seats table is built again with the new check and its rows copied (nothing references it).
    """
    CREATE TABLE seats_perfect (
        match_id     INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
        seat         INTEGER NOT NULL CHECK (seat >= 0),
        user_id      INTEGER NOT NULL,
        display_name TEXT    NOT NULL,
        level        TEXT CHECK (level IS NULL OR level IN ('easy', 'medium', 'hard', 'perfect')),
        PRIMARY KEY (match_id, seat)
    );
    INSERT INTO seats_perfect (match_id, seat, user_id, display_name, level)
        SELECT match_id, seat, user_id, display_name, level FROM seats;
    DROP TABLE seats;
    ALTER TABLE seats_perfect RENAME TO seats;
    CREATE INDEX seats_user ON seats (user_id);
    """,
    # 12: tournaments and seasons. A tournament (Swiss or round robin of one game variant, in one channel) with its
    # entrants (the computer too, at a level; late entrants from a later round; withdrawn from a round on, and why),
    # its rounds (one row per paired round: the primary key is what pairs a round exactly once, whichever process
    # gets there first) and each round's boards (a game names its match; forfeits, byes, half-point byes and rest
    # rounds name none; points stay NULL until the result is in). News of a tournament still to post (a new round,
    # the final standings) is claimed for delivery like the match outbox. A server's seasons setting (off, monthly,
    # quarterly), and each member's record per server, game and season (kept, never deleted), ranked along
    # season_rank as the ratings are along ratings_rank. ratings_rank_recent is ratings_rank with the time of each
    # member's last game, so that the default leaderboard, which leaves off ratings whose uncertainty grew with time
    # away (bot.service.uncertainty), is still read from the index alone.
    """
    CREATE TABLE tournaments (
        id             INTEGER PRIMARY KEY,
        guild_id       INTEGER NOT NULL,
        channel_id     INTEGER NOT NULL,
        name           TEXT    NOT NULL,
        game           TEXT    NOT NULL,
        variant        TEXT    NOT NULL,
        format         TEXT    NOT NULL CHECK (format IN ('swiss', 'round_robin')),
        rounds         INTEGER NOT NULL CHECK (rounds >= 1),
        days_per_move  INTEGER NOT NULL CHECK (days_per_move IN (0, 1, 2, 3, 5, 7, 14)),
        max_players    INTEGER NOT NULL CHECK (max_players >= 2),
        rated          INTEGER NOT NULL CHECK (rated IN (0, 1)),
        organizer_id   INTEGER NOT NULL,
        organizer_name TEXT    NOT NULL,
        status         TEXT    NOT NULL CHECK (status IN ('open', 'running', 'finished', 'cancelled')),
        current_round  INTEGER NOT NULL DEFAULT 0 CHECK (current_round >= 0),
        starts_at      REAL   ,
        created_at     REAL    NOT NULL,
        started_at     REAL   ,
        finished_at    REAL   ,
        version        INTEGER NOT NULL DEFAULT 0,
        engine         TEXT
    );
    CREATE INDEX tournaments_guild ON tournaments (guild_id, status, id);
    CREATE INDEX tournaments_due ON tournaments (starts_at, id) WHERE status = 'open' AND starts_at IS NOT NULL;
    CREATE INDEX tournaments_running ON tournaments (id) WHERE status = 'running';

    CREATE TABLE tournament_entries (
        tournament_id    INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
        user_id          INTEGER NOT NULL,
        display_name     TEXT    NOT NULL,
        number           INTEGER NOT NULL CHECK (number >= 1),
        rating           INTEGER NOT NULL DEFAULT 0,
        level            TEXT CHECK (level IS NULL OR level IN ('easy', 'medium', 'hard', 'perfect')),
        joined_at        REAL    NOT NULL,
        joined_round     INTEGER NOT NULL DEFAULT 1 CHECK (joined_round >= 1),
        withdrawn_round  INTEGER CHECK (withdrawn_round IS NULL OR withdrawn_round >= 1),
        withdrawn_reason TEXT,
        final_rank       INTEGER,
        PRIMARY KEY (tournament_id, user_id),
        CHECK ((withdrawn_round IS NULL) = (withdrawn_reason IS NULL))
    );
    CREATE INDEX tournament_entries_member ON tournament_entries (user_id, tournament_id);

    CREATE TABLE tournament_rounds (
        tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
        round         INTEGER NOT NULL CHECK (round >= 1),
        paired_at     REAL    NOT NULL,
        engine        TEXT    NOT NULL,
        PRIMARY KEY (tournament_id, round)
    );

    CREATE TABLE tournament_games (
        tournament_id INTEGER NOT NULL,
        round         INTEGER NOT NULL,
        board         INTEGER NOT NULL CHECK (board >= 1),
        first_id      INTEGER NOT NULL,
        second_id     INTEGER,
        kind          TEXT    NOT NULL CHECK (kind IN ('game', 'forfeit', 'bye', 'half_bye', 'rest')),
        match_id      INTEGER REFERENCES matches (id),
        first_points  REAL   ,
        second_points REAL   ,
        played        INTEGER CHECK (played IS NULL OR played IN (0, 1)),
        PRIMARY KEY (tournament_id, round, board),
        FOREIGN KEY (tournament_id, round) REFERENCES tournament_rounds (tournament_id, round) ON DELETE CASCADE,
        CHECK ((kind = 'game') = (match_id IS NOT NULL)),
        CHECK ((second_id IS NULL) = (kind IN ('bye', 'half_bye', 'rest')))
    );
    CREATE UNIQUE INDEX tournament_games_match ON tournament_games (match_id) WHERE match_id IS NOT NULL;
    CREATE INDEX tournament_games_pending ON tournament_games (tournament_id, round) WHERE first_points IS NULL;

    CREATE TABLE tournament_news (
        id            INTEGER PRIMARY KEY,
        tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
        round         INTEGER NOT NULL,
        kind          TEXT    NOT NULL CHECK (kind IN ('round', 'final', 'waiting')),
        attempts      INTEGER NOT NULL DEFAULT 0,
        next_at       REAL    NOT NULL,
        created_at    REAL    NOT NULL,
        UNIQUE (tournament_id, round, kind)
    );
    CREATE INDEX tournament_news_next ON tournament_news (next_at);

    ALTER TABLE guild_settings ADD COLUMN seasons TEXT NOT NULL DEFAULT 'off'
        CHECK (seasons IN ('off', 'monthly', 'quarterly'));

    CREATE TABLE season_records (
        guild_id     INTEGER NOT NULL,
        game         TEXT    NOT NULL,
        season       TEXT    NOT NULL,
        user_id      INTEGER NOT NULL,
        display_name TEXT    NOT NULL,
        mu           REAL    NOT NULL,
        sigma        REAL    NOT NULL,
        provisional  INTEGER NOT NULL CHECK (provisional IN (0, 1)),
        games        INTEGER NOT NULL DEFAULT 0,
        wins         INTEGER NOT NULL DEFAULT 0,
        losses       INTEGER NOT NULL DEFAULT 0,
        draws        INTEGER NOT NULL DEFAULT 0,
        updated_at   REAL    NOT NULL,
        PRIMARY KEY (guild_id, game, season, user_id)
    );
    CREATE INDEX season_rank ON season_records (
        guild_id, game, season, provisional, (ROUND(1000 + 40 * (mu - 3 * sigma))) DESC, wins DESC, display_name,
        user_id);
    CREATE INDEX ratings_rank_recent ON ratings (
        guild_id, game, (games < 5), (ROUND(1000 + 40 * (mu - 3 * sigma))) DESC, wins DESC, display_name, user_id,
        games, mu, sigma, updated_at);
    """,
    # 13: one outbox for every news the bot posts later (lichess's one scheduler, python-discord's one scheduling
    # base): a match's result and reminder, a tournament's round, final standings and "waiting", an expired
    # challenge, a vacation's end; each row names its subject by kind (``subject_id``: the match, tournament,
    # challenge or vacation), its step (``seq``: the match's ply, the tournament's round) and its server (for the
    # shards), and counts the messages of a multi-message news already posted (``parts_done``), so a retry posts
    # each message once. The tournament's boards become its pairings (a game, a forfeit, a bye or a late entrant's
    # ½-point bye; a round robin's bye, formerly a "rest", is a bye worth nothing). Whether a match may be aborted is
    # carried by the match (``no_abort``: a tournament's game), as lichess's NoAbort rule, instead of being asked of
    # the tournament tables.
    """
    CREATE TABLE news (
        id          INTEGER PRIMARY KEY,
        kind        TEXT    NOT NULL,
        subject_id  INTEGER NOT NULL,
        seq         INTEGER NOT NULL DEFAULT 0,
        guild_id    INTEGER NOT NULL,
        parts_done  INTEGER NOT NULL DEFAULT 0,
        attempts    INTEGER NOT NULL DEFAULT 0,
        next_at     REAL    NOT NULL,
        created_at  REAL    NOT NULL,
        status      TEXT    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'given_up')),
        last_error  TEXT,
        UNIQUE (kind, subject_id, seq)
    );
    INSERT INTO news (kind, subject_id, seq, guild_id, attempts, next_at, created_at, status, last_error)
        SELECT o.kind, o.match_id, o.ply, m.guild_id, o.attempts, o.next_at, o.created_at, o.status, o.last_error
        FROM outbox o JOIN matches m ON m.id = o.match_id ORDER BY o.id;
    INSERT INTO news (kind, subject_id, seq, guild_id, attempts, next_at, created_at)
        SELECT n.kind, n.tournament_id, n.round, t.guild_id, n.attempts, n.next_at, n.created_at
        FROM tournament_news n JOIN tournaments t ON t.id = n.tournament_id ORDER BY n.id;
    DROP TABLE outbox;
    DROP TABLE tournament_news;
    ALTER TABLE news RENAME TO outbox;
    CREATE INDEX outbox_next ON outbox (next_at) WHERE status = 'pending';
    CREATE INDEX outbox_subject ON outbox (kind, subject_id);

    CREATE TABLE tournament_pairings (
        tournament_id INTEGER NOT NULL,
        round         INTEGER NOT NULL,
        board         INTEGER NOT NULL CHECK (board >= 1),
        first_id      INTEGER NOT NULL,
        second_id     INTEGER,
        kind          TEXT    NOT NULL CHECK (kind IN ('game', 'forfeit', 'bye', 'half_bye')),
        match_id      INTEGER REFERENCES matches (id),
        first_points  REAL   ,
        second_points REAL   ,
        played        INTEGER CHECK (played IS NULL OR played IN (0, 1)),
        PRIMARY KEY (tournament_id, round, board),
        FOREIGN KEY (tournament_id, round) REFERENCES tournament_rounds (tournament_id, round) ON DELETE CASCADE,
        CHECK ((kind = 'game') = (match_id IS NOT NULL)),
        CHECK ((second_id IS NULL) = (kind IN ('bye', 'half_bye')))
    );
    INSERT INTO tournament_pairings (tournament_id, round, board, first_id, second_id, kind, match_id, first_points,
                                     second_points, played)
        SELECT tournament_id, round, board, first_id, second_id, CASE kind WHEN 'rest' THEN 'bye' ELSE kind END,
               match_id, first_points, second_points, played FROM tournament_games;
    DROP TABLE tournament_games;
    CREATE UNIQUE INDEX tournament_pairings_match ON tournament_pairings (match_id) WHERE match_id IS NOT NULL;
    CREATE INDEX tournament_pairings_pending ON tournament_pairings (tournament_id, round) WHERE first_points IS NULL;

    ALTER TABLE matches ADD COLUMN no_abort INTEGER NOT NULL DEFAULT 0 CHECK (no_abort IN (0, 1));
    UPDATE matches SET no_abort = 1 WHERE id IN (SELECT match_id FROM tournament_pairings WHERE match_id IS NOT NULL);
    """,
    # 14: puzzles (games/puzzles, seeds/puzzles.md). ``puzzles`` holds each puzzle once, by its id (a digest of its
    # position), with its record as JSON and that record's digest (the shipped set is loaded again whenever its
    # record changed), the server whose match it came from (NULL: the shipped set, served everywhere), its Glicko-2
    # rating (rating, deviation, volatility), and, once its proof no longer holds, when and why it was retired (never
    # served again). ``puzzle_players`` is a member's puzzle rating (one for the whole
    # bot, as lichess's), with the current and best streak. ``puzzle_attempts`` is one member's try at one puzzle,
    # alone (``daily_id`` 0) or as a server's daily puzzle: the solver moves found so far, the wrong answers and the
    # last answer typed, whether it was solved at the first try (NULL until it is rated), whether the line was
    # finished, whether the answer was shown, and the rating before and after. ``daily_puzzles`` is a server's
    # puzzle of a day (``day``: the UTC date it was posted), its message and thread once posted. A server chooses the
    # channel and the hour (UTC) of its daily puzzle.
    """
    CREATE TABLE puzzles (
        id          TEXT    PRIMARY KEY,
        game        TEXT    NOT NULL,
        guild_id    INTEGER,
        record      TEXT    NOT NULL,
        digest      TEXT    NOT NULL,
        rating      REAL    NOT NULL,
        deviation   REAL    NOT NULL,
        volatility  REAL    NOT NULL,
        plays       INTEGER NOT NULL DEFAULT 0,
        added_at    REAL    NOT NULL,
        retired_at  REAL,
        retired_why TEXT
    );
    CREATE INDEX puzzles_by_rating ON puzzles (game, rating) WHERE retired_at IS NULL;
    CREATE INDEX puzzles_any_rating ON puzzles (rating) WHERE retired_at IS NULL;

    CREATE TABLE puzzle_players (
        user_id     INTEGER PRIMARY KEY,
        rating      REAL    NOT NULL,
        deviation   REAL    NOT NULL,
        volatility  REAL    NOT NULL,
        rated       INTEGER NOT NULL DEFAULT 0,
        solved      INTEGER NOT NULL DEFAULT 0,
        streak      INTEGER NOT NULL DEFAULT 0,
        best_streak INTEGER NOT NULL DEFAULT 0,
        updated_at  REAL    NOT NULL
    );

    CREATE TABLE daily_puzzles (
        id          INTEGER PRIMARY KEY,
        guild_id    INTEGER NOT NULL,
        day         TEXT    NOT NULL,
        puzzle_id   TEXT    NOT NULL REFERENCES puzzles (id),
        channel_id  INTEGER NOT NULL,
        post_at     REAL    NOT NULL,
        reveal_at   REAL    NOT NULL,
        message_id  INTEGER,
        thread_id   INTEGER,
        revealed    INTEGER NOT NULL DEFAULT 0 CHECK (revealed IN (0, 1)),
        UNIQUE (guild_id, day)
    );

    CREATE TABLE puzzle_attempts (
        id            INTEGER PRIMARY KEY,
        user_id       INTEGER NOT NULL,
        puzzle_id     TEXT    NOT NULL REFERENCES puzzles (id),
        daily_id      INTEGER NOT NULL DEFAULT 0,
        guild_id      INTEGER,
        display_name  TEXT    NOT NULL,
        progress      INTEGER NOT NULL DEFAULT 0,
        tries         INTEGER NOT NULL DEFAULT 0,
        answer        TEXT,
        solved        INTEGER CHECK (solved IS NULL OR solved IN (0, 1)),
        finished      INTEGER NOT NULL DEFAULT 0 CHECK (finished IN (0, 1)),
        shown         INTEGER NOT NULL DEFAULT 0 CHECK (shown IN (0, 1)),
        rating_before REAL,
        rating_after  REAL,
        started_at    REAL    NOT NULL,
        finished_at   REAL,
        UNIQUE (user_id, puzzle_id, daily_id)
    );
    CREATE INDEX puzzle_attempts_open ON puzzle_attempts (user_id, daily_id) WHERE finished = 0;
    CREATE INDEX puzzle_attempts_daily ON puzzle_attempts (daily_id, finished_at) WHERE daily_id <> 0;

    ALTER TABLE guild_settings ADD COLUMN puzzle_channel_id INTEGER;
    ALTER TABLE guild_settings ADD COLUMN puzzle_hour INTEGER NOT NULL DEFAULT 12
        CHECK (puzzle_hour BETWEEN 0 AND 23);
    """,
    # 15: a member's consent to be named under the puzzles from their matches (``/notify puzzle_names``): a match
    # puzzle's source names the players ("from alice vs bob, move 14") only when every seat's member gave it. Off by
    # default.
    """
    ALTER TABLE member_prefs ADD COLUMN puzzle_names INTEGER NOT NULL DEFAULT 0 CHECK (puzzle_names IN (0, 1));
    """,
    # 16: languages. A server's language for its public posts (NULL: the language Discord reports for the server),
    # and the languages Discord last reported for each server and member (guild_locale, locale), for the posts and
    # direct messages sent outside any interaction (news from the outbox, reminders).
    """
    ALTER TABLE guild_settings ADD COLUMN language TEXT;
    CREATE TABLE seen_locales (
        scope   TEXT    NOT NULL CHECK (scope IN ('guild', 'member')),
        id      INTEGER NOT NULL,
        locale  TEXT    NOT NULL,
        seen_at REAL    NOT NULL,
        PRIMARY KEY (scope, id)
    );
    """,
)
