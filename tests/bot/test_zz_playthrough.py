"""Temporary playthrough (not committed): prints what players see."""
from __future__ import annotations
import io
from pathlib import Path
import pytest
from PIL import Image
from storage import Database
from tests.bot.helpers import World, stored
from tests.reliability._support import start_discord_match

OUT = Path("/tmp/shots")


def show(tag, result):
    msgs = ([result.response] if result.response else []) + list(result.followups or [])
    for m in msgs:
        print(f"--- {tag} (ephemeral={result.ephemeral})\n{m.content}")
        for e in m.embeds:
            print("EMBED:", e.title, "\n", e.description)
            for f in e.fields:
                print(" FIELD", f.name, ":", f.value)


async def save(msg, name):
    for a in msg.attachments:
        data = await a.read()
        img = Image.open(io.BytesIO(data))
        w = 400
        img = img.resize((w, int(img.height * w / img.width)))
        img.save(OUT / f"{name}.png")


async def test_play(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob", "carol")
    mid = await start_discord_match(world, db, "chopsticks")
    thread = world.thread()
    show("alice move", await world["alice"].slash(thread, "chopsticks move", notation="LL"))
    show("bob move", await world["bob"].slash(thread, "chopsticks move", notation="LR"))
    show("bob premove list empty", await world["bob"].slash(thread, "match premove"))
    show("bob premove", await world["bob"].slash(thread, "match premove", if_they_play="LL", reply="RR", then_if="LR", then_reply="LL"))
    show("bob premove bad", await world["bob"].slash(thread, "match premove", if_they_play="zz", reply="RR"))
    show("bob premove list", await world["bob"].slash(thread, "match premove"))
    show("alice premove (to move)", await world["alice"].slash(thread, "match premove", if_they_play="LL", reply="RR"))
    show("alice plays LL", await world["alice"].slash(thread, "chopsticks move", notation="LL"))
    print("THREAD LAST:", [m.content for m in thread.history()][-1:])
    show("bob /vacation start", await world["bob"].slash(world.channel, "vacation start"))
    show("alice /match list", await world["alice"].slash(world.channel, "match list"))
    show("alice board", await world["alice"].slash(thread, "match board"))
    show("bob /vacation end", await world["bob"].slash(world.channel, "vacation end"))
    show("bob /vacation end again", await world["bob"].slash(world.channel, "vacation end"))
    show("alice notify", await world["alice"].slash(world.channel, "notify", dm="on", pings="off"))
    show("alice notify show", await world["alice"].slash(world.channel, "notify"))
    m = await stored(db, mid)
    to_move = "alice" if m.current_seat == 0 else "bob"
    print("to move:", to_move)
    show("scope all", await world["alice"].slash(world.channel, "match list", scope="all"))
    show("resign", await world["bob"].slash(thread, "match resign"))
    print("ALICE DMs:", [x.content for x in world["alice"].user.dm_channel.history()] if world["alice"].user.dm_channel else None)
    r = await world["carol"].slash(world.channel, "match review", match=str(mid))
    show("review", r)
    for msg in [r.response, *(r.followups or [])]:
        if msg and msg.attachments:
            await save(msg, "review_chopsticks")
    # against the computer, differences, then review
    for game, cmd in [("differences", "differences start"), ("groebner_nim", "groebner start"), ("polygons", "polygons start"), ("napkin_chess", "napkin start")]:
        res = await world["carol"].slash(world.channel, cmd, opponent=world.bot_member(), level="easy")
        show(f"{game} start vs computer", res)
        m2 = max([x for x in (await db.fetchall("SELECT id FROM matches"))])[0]
        rr = await world["carol"].slash(world.channel, "match resign", match=str(m2))
        r = await world["alice"].slash(world.channel, "match review", match=str(m2))
        show(f"review {game}", r)
        for msg in [r.response, *(r.followups or [])]:
            if msg and msg.attachments:
                await save(msg, f"review_{game}")
