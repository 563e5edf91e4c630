"""Who reads which language, through the real discord.py code paths (SimCord): an answer only the member sees in
their ``locale``, a board everyone in the channel reads in the server's (``guild_locale``, or ``/settings
language``), its image's words and alt text too, plural forms by each language's rule."""

from __future__ import annotations

import re

import discord
import pytest

import i18n
from bot.local_play import Languages
from renderers._common import recording
from storage import Database, ReadTx
from tests.bot.helpers import World, both_sides_move, labels, move_button, only_match_id, press, stored
from tests.exts.match.test_review_discord import MOVES as REVIEWED_MOVES


def _admin(env, world: World, name: str = "boss"):
    """A member with Manage Server (who may use /settings)."""
    admins = world.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    return world.guild.add_member(env.create_user(name), roles=[admins])


async def _started(world: World) -> None:
    """alice challenges bob to Chopsticks and bob accepts: the first board is posted in the match's thread."""
    challenge = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    await press(world["bob"], challenge.response, "accept")


async def test_a_french_member_reads_refusals_in_french_with_the_plural_french_uses(
        simcord_env, languages: Languages) -> None:
    world = World(simcord_env, "alice", "bob")
    languages.members[world["alice"].id] = "fr"
    await _started(world)
    for _ in range(2):
        shown = await world["alice"].slash(world.thread(), "match history")
        assert not shown.ephemeral
    rested = await world["alice"].slash(world.thread(), "match history")
    assert rested.ephemeral
    text = rested.response.content
    assert text.startswith("`/match history` marque une pause entre deux utilisations"), text
    seconds = int(re.search(r"réessayez dans (\d+) secondes?\.$", text).group(1))
    assert text.endswith(f"{seconds} seconde." if seconds < 2 else f"{seconds} secondes.")  # French: 0 and 1 singular
    languages.members[world["bob"].id] = "de"
    shown = await world["bob"].slash(world.thread(), "match history")
    assert not shown.ephemeral  # bob's own first use: no rest for him


async def test_a_refusal_quotes_what_the_member_typed_in_their_language(simcord_env, db: Database,
                                                                         languages: Languages) -> None:
    world = World(simcord_env, "alice", "bob")
    languages.members[world["alice"].id] = "pt-BR"
    await _started(world)
    match_id = await only_match_id(db)
    refused = await world["alice"].slash(world.thread(), "chopsticks move", notation="zz")
    assert refused.ephemeral
    assert refused.response.content.startswith("'zz' não é um lance de Palitinhos. Escreva um toque como LL"), \
        refused.response.content
    refused = await world["alice"].slash(world.thread(), "chopsticks move", notation="split 1 1")
    assert refused.ephemeral
    assert refused.response.content == ("Uma divisão precisa mudar suas mãos; você já tem 1 1. Lances legais: LL, LR, "
                                        "RL, RR, self LR, self RL.")
    assert (await stored(db, match_id)).ply == 0  # nothing stored changed
    languages.members[world["bob"].id] = "de"
    early = await world["bob"].slash(world.thread(), "chopsticks move", notation="LL")
    assert early.ephemeral and early.response.content == "Du bist nicht am Zug: alice ist am Zug."
    assert (await stored(db, match_id)).ply == 0
    boss = _admin(simcord_env, world)
    command = simcord_env.backend.find_command("settings", None, type=1)
    world.guild.set_command_permissions(int(command["id"]), {world["alice"]: True})
    languages.members[world["alice"].id] = "fr"
    refused = await world["alice"].slash(world.channel, "settings", language="de")
    assert refused.ephemeral
    assert refused.response.content == "Il vous faut la permission Gérer le serveur pour faire cela."
    assert (await db.read(ReadTx.get_settings, world.guild.id)).language is None
    languages.members[boss.id] = "de"
    done = await boss.slash(world.channel, "settings", language="pt_BR")
    assert done.response.content.startswith("Einstellungen aktualisiert.\n")
    assert (await db.read(ReadTx.get_settings, world.guild.id)).language == "pt_BR"


async def test_boards_are_in_the_servers_language_and_answers_in_the_members(simcord_env, db: Database,
                                                                              languages: Languages) -> None:
    world = World(simcord_env, "alice", "bob")
    languages.server = "fr"
    languages.member = "en-US"
    with recording() as drawn:
        await _started(world)
    board = world.thread().last_message
    match_id = await only_match_id(db)
    assert board.content.startswith(f"**Baguettes** · partie n° {match_id} · nouvelle partie"), board.content
    assert f"<@{world['alice'].id}>, à vous de jouer · délai <t:" in board.content
    assert "Pour jouer : `/chopsticks move notation:" in board.content
    (image,) = board.attachments
    assert image.description.startswith("Plateau de Baguettes, coup 0. Règles : sans rollover, tapes sur soi, "
                                        "partages libres."), image.description
    words = {text.text for text in drawn}
    assert {"Baguettes", "alice au trait", "premier joueur", "second joueur", "gauche", "droite"} <= words, words
    assert list(labels(board).values()) == ["L → L adverse", "L → R adverse", "R → L adverse", "R → R adverse",
                                            "sur soi L → R", "sur soi R → L"]  # the notation's letters stay
    # The member's own answer (the move list) follows their language, not the server's: English here.
    moves = await world["alice"].slash(world.thread(), "match history")
    assert not moves.ephemeral
    match = await stored(db, match_id)
    assert match.status == "active"


async def test_settings_language_overrides_the_language_discord_reports(simcord_env, db: Database,
                                                                        languages: Languages) -> None:
    world = World(simcord_env, "alice", "bob")
    languages.server = "fr"
    languages.member = "es-ES"
    changed = await _admin(simcord_env, world).slash(world.channel, "settings", language="de")
    assert changed.ephemeral
    assert changed.response.content.startswith("Ajustes actualizados.\n"), changed.response.content
    assert "• Idioma de los tableros y noticias publicados aquí: Deutsch" in changed.response.content
    assert (await db.read(ReadTx.get_settings, world.guild.id)).language == "de"
    await _started(world)
    board = world.thread().last_message
    assert board.content.startswith("**Stäbchen** · Partie #"), board.content
    assert board.attachments[0].description.startswith("Stäbchen-Brett, Zug 0.")
    # A click answers in the chosen language too, not in the one Discord reports: the challenge's edit, its
    # buttons, and the next board after a move played with a button.
    challenge = next(m for m in world.channel.history() if m.components)
    assert "\nAngenommen von **bob**: Partie #" in challenge.content, challenge.content
    assert list(labels(challenge).values()) == ["Annehmen", "Ablehnen"]
    await world["alice"].click(board, custom_id=move_button(board, "LL").custom_id)
    moved = world.thread().last_message
    assert moved.id != board.id
    assert moved.content.startswith("**Stäbchen** · Partie #"), moved.content
    assert moved.attachments[0].description.startswith("Stäbchen-Brett, Zug 1."), moved.attachments[0].description


async def test_the_bot_remembers_each_members_and_servers_language_for_what_it_sends_later(
        simcord_env, db: Database, simcord_bot, languages: Languages) -> None:
    world = World(simcord_env, "alice", "bob")
    languages.members[world["alice"].id] = "pt-BR"
    languages.server = "de"
    await world["alice"].slash(world.channel, "help")
    languages.members[world["alice"].id] = "fr"
    await world["alice"].slash(world.channel, "help")
    services = simcord_bot.services
    assert await services.languages.member_language(world["alice"].id) == "fr"
    assert await services.languages.server_language(world.guild.id) == "de"
    assert await db.read(ReadTx.seen_locale, "member", world["alice"].id) == "fr"
    assert await services.languages.member_language(world["bob"].id) == "en"  # never seen: English


@pytest.mark.parametrize(("locale", "count", "expected"), [
    ("fr", 0, "0 jour"), ("fr", 1, "1 jour"), ("fr", 2, "2 jours"),
    ("de", 0, "0 Tage"), ("de", 1, "1 Tag"),
    ("pt-BR", 0, "0 dia"), ("es-ES", 0, "0 días"), ("es-ES", 1, "1 día"),
    ("fr", 1500, "1\u202f500 jours"), ("de", 1500, "1.500 Tage"), ("en", 1500, "1,500 days"),
])
def test_plural_forms_follow_each_languages_rule_and_numbers_its_digits(locale: str, count: int,
                                                                        expected: str) -> None:
    text = i18n.n_("• Days per move: {count} day", "• Days per move: {count} days", count)
    assert text.render(locale).rsplit(": ", 1)[1] == expected


async def test_a_direct_message_is_in_the_members_last_seen_language(simcord_env, db: Database,
                                                                    languages: Languages) -> None:
    """bob's client was last in Brazilian Portuguese: his turn's direct message is, whatever the server's language
    and the language of alice, whose move made it."""
    world = World(simcord_env, "alice", "bob")
    languages.server = "fr"
    languages.members[world["bob"].id] = "pt-BR"
    await world["bob"].slash(world.channel, "notify", dm="on")
    await _started(world)
    match_id = await only_match_id(db)
    languages.members[world["alice"].id] = "de"
    await world["alice"].slash(world.thread(), "chopsticks move", notation="LL")
    board = world.thread().last_message
    [dm] = [message.content for message in world["bob"].user.dm_channel.history()]
    assert dm.startswith(f"É a sua vez na partida nº {match_id} de **Palitinhos** contra alice em **"), dm
    assert dm.endswith(board.jump_url) and "(prazo <t:" in dm
    assert board.content.startswith(f"**Baguettes** · partie n° {match_id} · coup 1")  # the server's language


async def test_help_and_its_topics_are_in_the_members_language(simcord_env, languages: Languages) -> None:
    world = World(simcord_env, "alice", "bob")
    languages.members[world["alice"].id] = "fr"
    languages.members[world["bob"].id] = "pt-BR"
    shown = await world["alice"].slash(world.channel, "help")
    assert shown.ephemeral
    embed = shown.response.embeds[0]
    assert embed.description.startswith("Des jeux papier-crayon joués tour à tour sur ce serveur"), embed.description
    fields = {field.name: field.value for field in embed.fields}
    assert fields["Baguettes"].startswith("Commencer : `/chopsticks start` · jouer : `/chopsticks ")
    assert "`/match resign` : abandonner une partie" in fields["Vos parties"]  # French puts a space before a colon
    assert embed.footer.text.startswith("Dans le fil d'une partie, la partie est sous-entendue")
    topic = await world["bob"].slash(world.channel, "help", topic="tournaments")
    embed = topic.response.embeds[0]
    assert topic.ephemeral and embed.title == "Torneios"
    assert [field.name for field in embed.fields] == ["As rodadas andam sozinhas", "Folgas, inscrições tardias, "
                                                      "desistências", "Classificação e desempates"]
    languages.members[world["bob"].id] = "ja"  # a language we do not ship: English
    ratings = (await world["bob"].slash(world.channel, "help", topic="ratings")).response.embeds[0]
    assert ratings.title == "Ratings and seasons" and ratings.fields[2].name == "Seasons"


@pytest.mark.parametrize("locale", [locale for locale in i18n.SHIPPED if locale != i18n.SOURCE])
def test_every_games_rules_are_translated_within_discords_limits(locale: str) -> None:
    from bot.exts.community import rules_embed

    for key in ("chopsticks", "differences", "groebner_nim", "napkin_chess", "polygons"):  # the games we ship
        english, translated = rules_embed(key), rules_embed(key, locale)  # raises past a field's or an embed's size
        assert len(translated) <= 6000 and len(translated.fields) == len(english.fields) <= 25
        pairs = [(english.description, translated.description)] + [
            (a.name + a.value, b.name + b.value) for a, b in zip(english.fields, translated.fields, strict=True)
            if a.name != "Source"]
        assert all(before != after for before, after in pairs), (key, locale)  # every section in the language
        codes = re.compile(r"`[^`]+`")
        assert set(codes.findall(english.description)) == set(codes.findall(translated.description)), (key, locale)


async def test_rules_are_read_in_the_members_language_with_the_example_board(simcord_env,
                                                                             languages: Languages) -> None:
    world = World(simcord_env, "alice")
    languages.members[world["alice"].id] = "fr"
    shown = await world["alice"].slash(world.channel, "rules", game="chopsticks")
    assert shown.ephemeral
    embed = shown.response.embeds[0]
    assert embed.title == "Baguettes : règles" and embed.fields[0].name == "Comment jouer"
    assert embed.fields[-1].name == "Source" and embed.footer.text.startswith("Lancer une partie : /chopsticks start")
    assert shown.response.attachments[0].description.startswith("Exemple de plateau : Baguettes. Plateau de Baguettes")


async def test_a_challenge_is_posted_in_the_servers_language_and_refusals_in_the_members(simcord_env,
                                                                                       languages: Languages) -> None:
    world = World(simcord_env, "alice", "bob")
    languages.server = "fr"
    languages.members[world["alice"].id] = "de"
    bob = world["bob"]
    offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=bob, days=3, rollover=True)
    text = offered.response.content
    assert text.startswith(f"**alice** défie <@{bob.id}> à **Baguettes · rollover** (3 jours par coup ; le lanceur du "
                           "défi joue en premier).\nLe défi expire <t:"), text
    declined = await press(bob, offered.response, "decline")
    assert declined.response.content.endswith("\nRefusé par **bob**.")
    refused = await world["alice"].slash(world.channel, "chopsticks start", opponent=bob, level="hard")
    assert refused.ephemeral
    assert refused.response.content.startswith("`level:hard` stellt die Stärke des Computers ein"), \
        refused.response.content


async def test_the_hint_in_a_match_thread_is_in_the_servers_language(simcord_env, languages: Languages) -> None:
    world = World(simcord_env, "alice", "bob")
    languages.server = "pt-BR"
    await _started(world)
    await world["alice"].send(world.thread(), "LL")
    (hint,) = [message for message in world.thread().history()
               if message.author.bot and "ler mensagens" in message.content]
    assert hint.content.startswith("alice, não consigo ler mensagens: os lances são comandos de barra. "), hint.content
    assert "`/chopsticks move notation:" in hint.content and "/rules game:chopsticks" in hint.content


async def test_stats_leaderboard_and_match_lists_follow_who_reads_them(simcord_env, db: Database,
                                                                      languages: Languages) -> None:
    world = World(simcord_env, "alice", "bob")
    languages.server = "de"
    languages.members[world["alice"].id] = "pt-BR"
    await _started(world)
    match_id = await only_match_id(db)
    listed = await world["alice"].slash(world.channel, "match list")
    assert listed.ephemeral  # only alice reads it: in her language
    line = listed.response.content
    assert line.startswith(f"#{match_id} Palitinhos contra bob: "), line
    assert ("**sua vez**, prazo <t:" in line) != ("Vez de bob, prazo <t:" in line), line
    everywhere = await world["alice"].slash(world.channel, "match list", scope="all")
    assert everywhere.response.content.startswith("1 partida em andamento em 1 servidor; sua vez em "), \
        everywhere.response.content
    await both_sides_move(world, db, match_id)
    await world["alice"].slash(world.thread(), "match resign")
    assert (await stored(db, match_id)).status == "finished"
    stats = await world["alice"].slash(world.channel, "stats", user=world["bob"])
    assert not stats.ephemeral  # everyone in the channel reads it: in the server's language
    (embed,) = stats.response.embeds
    assert embed.title == "bob — Statistik"
    assert [field.name for field in embed.fields] == ["Stäbchen"]
    assert re.fullmatch(r"Wertung \d+\? · S/N/R 1/0/0 · 1 Partie", embed.fields[0].value), embed.fields[0].value
    assert embed.footer.text.startswith("Partien gegen den Computer zählen hier nicht"), embed.footer.text
    board = await world["alice"].slash(world.channel, "leaderboard", game="chopsticks", provisional=True)
    (embed,) = board.response.embeds
    assert embed.title == "Stäbchen — Rangliste"
    assert embed.description.splitlines()[0].startswith("` 1.` **bob** · ") and "· 1/0/0" in embed.description
    assert embed.footer.text.startswith("Seite 1 von 1 · Wertung 1000 + 40·(μ − 3σ), openskill · S/N/R · "), \
        embed.footer.text
    refused = await world["alice"].slash(world.channel, "leaderboard", game="chopsticks", season="spring")
    assert refused.ephemeral
    assert refused.response.content.startswith("`spring` não é uma temporada: um mês como `2025-03`"), \
        refused.response.content


async def test_a_review_is_in_the_language_of_who_reads_it(simcord_env, db: Database, languages: Languages) -> None:
    world = World(simcord_env, "alice", "bob", "carol")
    languages.server = "pt-BR"
    languages.members[world["carol"].id] = "fr"
    match_id = await _finished_review_match(world, db)
    assert world.thread().name == f"Palitinhos #{match_id}: alice vs bob"  # the thread is named in the server's
    private = await world["carol"].slash(world.channel, "match review", match=str(match_id))
    assert private.ephemeral  # only carol reads it: in French
    (embed,) = next(m for m in (private.followups or [private.response]) if m.embeds).embeds
    assert embed.title == f"Analyse de la partie n° {match_id} · Baguettes"
    assert embed.description.startswith("Valeurs exactes issues d'une recherche complète")
    assert "Avec un jeu parfait dès le départ, le premier joueur gagne." in embed.description
    lines = [line for line in embed.description.splitlines() if line[:1].isdigit()]
    assert lines[0] == "1. `self LR` (alice) : gain → gain · gardait le gain"
    assert lines[6] == ("7. `self RL` (alice) : gain → perte · gaffe : a gâché un gain forcé ; `LL` ou `RL` gardait "
                        "le gain")
    fields = {field.name: field.value for field in embed.fields}
    assert fields["Joueurs"].splitlines()[0] == ("alice : 6 coups (4 sans rien perdre, 1 dans une position perdue et "
                                                 "1 gaffe)")
    assert fields["Tournant"].startswith("Coup 10, `RR` de bob : gaffe : a gâché un gain forcé")
    public = await world["carol"].slash(world.channel, "match review", match=str(match_id), public=True)
    assert not public.ephemeral  # everyone reads it: in the server's language
    message = next(m for m in (public.followups or [public.response]) if m.embeds)
    assert message.embeds[0].title == f"Análise da partida nº {match_id} · Palitinhos"
    assert message.attachments[0].description.startswith(
        f"Análise da partida nº {match_id}: a posição antes do lance 10, o ponto de virada."), \
        message.attachments[0].description



async def _finished_review_match(world: World, db: Database) -> int:
    """The Chopsticks match the review tests play (``REVIEWED_MOVES``), to its end: alice wins."""
    await _started(world)
    match_id = await only_match_id(db)
    for ply, notation in enumerate(REVIEWED_MOVES):
        played = await world["alice" if ply % 2 == 0 else "bob"].slash(world.thread(), "chopsticks move",
                                                                       notation=notation)
        assert not played.ephemeral, played.response.content
    assert (await stored(db, match_id)).status == "finished"
    return match_id


async def test_a_tournament_is_posted_in_the_servers_language_and_its_info_in_the_members(
        simcord_env, db: Database, languages: Languages) -> None:
    world = World(simcord_env, "t1", "t2", "t3")
    languages.server = "fr"
    languages.members[world["t3"].id] = "pt-BR"
    created = await world["t1"].slash(world.channel, "tournament create", game="chopsticks", name="Coupe",
                                      rounds=2, days=1)
    assert not created.ephemeral
    assert created.response.content.startswith("**t1** ouvre le tournoi **\\#1 Coupe** : Baguettes · système suisse · "
                                               "2 rondes · 1 jour par coup · classé · inscriptions ouvertes ; il "
                                               "commence quand son organisateur le lance."), created.response.content
    for name in ("t1", "t2", "t3"):
        await world[name].slash(world.channel, "tournament join", tournament="1")
    await world["t1"].slash(world.channel, "tournament start", tournament="1")
    (pairings,) = [m for m in world.channel.history() if m.embeds and "ronde 1 sur 2" in (m.embeds[0].title or "")]
    embed = pairings.embeds[0]
    assert embed.title == "#1 Coupe — ronde 1 sur 2"
    lines = embed.description.splitlines()
    assert any(line.endswith(": exempt (1 point)") for line in lines), lines
    assert any(" · partie n° " in line for line in lines), lines
    assert embed.footer.text.startswith("Le premier nommé joue en premier · 1 jour par coup · "), embed.footer.text
    info = await world["t3"].slash(world.channel, "tournament info", tournament="1")
    assert info.ephemeral  # only t3 reads it: in Brazilian Portuguese
    fields = {field.name: field.value for field in info.response.embeds[0].fields}
    assert fields["Formato"] == "sistema suíço · desempates Buchholz cut-1, depois Sonneborn-Berger"
    assert fields["Jogadores"].startswith("3 de no máximo "), fields
    standings = await world["t2"].slash(world.channel, "tournament standings", tournament="1")
    assert not standings.ephemeral
    embed = standings.response.embeds[0]
    assert embed.title == "#1 Coupe — classement avant le premier résultat"
    assert embed.footer.text.startswith("page 1 sur 1 · classés aux points, puis Buchholz cut-1 (BH-1), puis "
                                        "Sonneborn-Berger (SB) · cote au départ"), embed.footer.text
    (image,) = standings.response.attachments
    assert image.description.startswith("Tableau du classement : Coupe · classement avant le premier résultat, "
                                        "page 1 sur 1. 1. t1 : Pts 0, BH-1 0, SB 0, Parties 0, Cote 1000"), \
        image.description


async def test_an_expired_challenge_and_a_reminder_are_posted_in_the_servers_language(
        simcord_env, db: Database, languages: Languages) -> None:
    world = World(simcord_env, "alice", "bob")
    languages.server = "de"
    offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"], days=3)
    await simcord_env.advance_time(86400 + 60)
    challenge = next(m for m in world.channel.history() if m.id == offered.response.id)
    assert challenge.content.endswith("\nDiese Herausforderung ist unbeantwortet abgelaufen."), challenge.content
    assert list(labels(challenge).values()) == ["Annehmen", "Ablehnen"]
    told = world.channel.last_message
    assert told.content == (f"<@{world['alice'].id}>, niemand hat deine Stäbchen-Herausforderung rechtzeitig "
                            "angenommen; sie ist abgelaufen."), told.content
    await _started(world)
    await simcord_env.advance_time(2 * 86400 + 60)  # two of the three days: a third is left
    reminder = world.thread().last_message
    assert reminder.content.startswith(f"<@{world['alice'].id}>, dir bleibt noch ein Drittel deiner Zeit in "
                                       "Partie #"), reminder.content
    assert "sonst geht die Partie kampflos verloren." in reminder.content


async def test_the_computers_level_is_named_in_the_servers_language(simcord_env, db: Database,
                                                                   languages: Languages) -> None:
    world = World(simcord_env, "alice")
    languages.server = "fr"
    with recording() as drawn:
        await world["alice"].slash(world.channel, "chopsticks start", opponent=world.bot_member(), level="hard",
                                   seat="second")
    board = world.thread().last_message
    match = await stored(db, await only_match_id(db))
    name = match.seats[0].name.removesuffix(" (hard)")
    assert f"{name} (difficile) a joué " in board.content, board.content
    assert f"{name} (difficile)" in board.attachments[0].description
    assert any(f"{name} (difficile)" in text.text for text in drawn), {text.text for text in drawn}
    assert match.seats[0].name == f"{name} (hard)"  # stored as typed: the words are the reader's
    assert match.seats[0].display_name == f"{name} (hard)"  # read outside any language: English


async def test_settings_read_every_value_in_the_members_language(simcord_env, languages: Languages) -> None:
    world = World(simcord_env, "alice")
    languages.member = "fr"
    shown = await _admin(simcord_env, world).slash(world.channel, "settings")
    assert shown.ephemeral
    lines = shown.response.content.splitlines()
    assert "• Saisons (classements séparés ; les cotes continuent) : désactivé" in lines, lines
    assert "• Langue des plateaux et nouvelles publiés ici : automatique (la langue du serveur dans Discord)" in lines
    changed = await _admin(simcord_env, world, "boss2").slash(world.channel, "settings", seasons="quarterly")
    assert "• Saisons (classements séparés ; les cotes continuent) : trimestriel" in (
        changed.response.content.splitlines())
