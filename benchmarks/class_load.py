"""A live class on one server (issue 56), for ``benchmarks/bench_load.py --class K``: a lecturer and K students
driven by the headless protocol client (deploy/streamlit_client.py), with the pages' automatic refreshes.

The lecturer's session opens /lessons, presses **Start a class** and reads the class code from its view. Every
student opens ``/lessons?class=CODE`` within the first ``arrive`` seconds (the page gives it an id in its
address), then, for each of ``rounds`` lessons: thinks 2–8 s, predicts (a random choice, or a number), presses
**Check** and must see "Sent"; waits, with its page's fragment refreshing on its timer, until the reveal arrives
("Correct" / "Not quite"), then until its page follows the lecturer to the next lesson. The lecturer's live view
refreshes on its own timer; once its "Answered" shows every student (the first round: after an idle window in
which only refreshes run), the lecturer presses **Reveal**, waits until every student saw the feedback, and
presses **Next lesson**.

Measured: every action a person takes (open, predict, Check, Start, Reveal, Next) send → script finished; every
automatic refresh; how long after Reveal / Next a student's page showed it (bounded by the refresh interval); the
server's CPU over the whole class and, in the idle window, per refresh that found nothing new.
"""
from __future__ import annotations

import asyncio
import random
import re
import time
from dataclasses import dataclass, field

from streamlit_client import Run, Session

CODE = re.compile(r"class code <strong>([A-Z0-9]+)</strong>")
LESSON = re.compile(r"^Lesson (\d+) ·")
FEEDBACK = ("Correct", "Not quite")
WAIT_S = 60.0  # longest a student waits for the room (a reveal, a move) before it counts as a failure


@dataclass
class Tally:
    """What the class run measured (seconds, lists of samples) and what went wrong."""

    actions: list = field(default_factory=list)  # (what, seconds) of every action a person took
    refreshes: list = field(default_factory=list)  # seconds of every automatic fragment refresh
    full_refreshes: int = 0  # refreshes that found a change and redrew the page
    follow: dict = field(default_factory=lambda: {"reveal": [], "move": []})  # delay until a student saw it
    failures: list = field(default_factory=list)
    idle: dict = field(default_factory=dict)  # the idle window: seconds, refreshes, server CPU

    def act(self, what: str, run: Run, who: str) -> Run:
        """Record an action's time; an exception or an error on the page is a failure."""
        self.actions.append((what, run.seconds))
        self.check(run, f"{who} {what}")
        return run

    def check(self, run: Run, where: str) -> None:
        """A run that raised or showed an st.error is a failure."""
        errors = [body for kind, body in run.alerts if kind == "error"]
        if run.exceptions or errors:
            self.failures.append((where, run.exceptions[:1] or errors[:1]))


def lesson_of(run: Run) -> int | None:
    """The lesson number a page shows (its "Lesson N · …" heading)."""
    return next((int(m.group(1)) for t in run.texts if (m := LESSON.match(t))), None)


def feedback_of(run: Run) -> str | None:
    """The student's verdict shown after the reveal, if any."""
    return next((body for kind, body in run.alerts if kind in ("success", "warning") and body.startswith(FEEDBACK)),
                None)


class Room:
    """What the lecturer did when (the students' follow delays are measured from it) and who has seen it."""

    def __init__(self, students: int, follow: dict):
        self.students = students
        self.follow = follow  # the Tally's follow delays
        self.browsers: list[Browser] = []  # the students' sessions, as they open
        self.lesson: int | None = None
        self.revealed_at: float | None = None
        self.moved_at: float | None = None
        self.saw_reveal: set = set()
        self.followed: set = set()
        self.changed = asyncio.Event()  # set whenever a student saw something new

    def saw(self, group: set, k: int) -> None:
        group.add(k)
        self.changed.set()


class Browser:
    """One session with its page's fragment timers running as a browser's: a refresh is sent when due (after any
    action in flight), and every full run is remembered for the person's next decision."""

    def __init__(self, session: Session, tally: Tally, who: str):
        self.s, self.tally, self.who = session, tally, who
        self.page: Run | None = None  # the last full run: the page as the person sees it
        self.fragment_runs: list[Run] = []
        self.drawn = asyncio.Event()  # a refresh redrew the page
        self.stop = asyncio.Event()
        self.count_idle = False
        self.idle_refreshes = 0

    def saw(self, run: Run) -> Run:
        if run.full:
            self.page = run
        return run

    async def timers(self) -> None:
        """The page's run_every timers, until stopped."""
        while not self.stop.is_set():
            due = self.s.due()
            wait = 0.25 if due is None else due[0] - time.monotonic()
            if wait > 0:
                try:
                    await asyncio.wait_for(self.stop.wait(), min(wait, 0.25))
                except TimeoutError:
                    pass
                continue
            try:
                run = await self.s.refresh(due[1])
            except TimeoutError:
                self.tally.failures.append((f"{self.who} refresh", "no answer in 60 s"))
                continue
            self.tally.refreshes.append(run.seconds)
            self.idle_refreshes += self.count_idle
            self.tally.check(run, f"{self.who} refresh")
            self.fragment_runs.append(run)
            del self.fragment_runs[:-3]
            if run.full:
                self.tally.full_refreshes += 1
                self.saw(run)
                self.drawn.set()

    async def until(self, predicate, what: str, timeout: float = WAIT_S) -> bool:
        """Wait until the page as drawn satisfies ``predicate``; False (and a failure) after ``timeout``."""
        deadline = time.monotonic() + timeout
        while not (self.page is not None and predicate(self.page)):
            left = deadline - time.monotonic()
            if left <= 0:
                self.tally.failures.append((self.who, f"never saw {what}"))
                return False
            self.drawn.clear()
            try:
                await asyncio.wait_for(self.drawn.wait(), left)
            except TimeoutError:
                pass
        return True


async def lecturer(url: str, tally: Tally, ready: asyncio.Future, room: Room, rounds: int, idle: float,
                   cpu) -> None:
    """The lecturer: start the class, then per lesson wait for every answer, Reveal, wait for the room, Next."""
    async with Session(url, "lessons") as s:
        b = Browser(s, tally, "lecturer")
        run = b.saw(await s.load())
        for _ in range(4):  # a fresh server's first run may be the entry run (ui.ensure_entrypoint)
            if any(w.endswith("class_start") for w in s.widgets):
                break
            run = b.saw(await s.load())
        run = b.saw(tally.act("start", await s.click("class_start"), "lecturer"))
        code = next((m.group(1) for t in run.texts if (m := CODE.search(t))), None)
        if code is None:
            ready.set_exception(RuntimeError(f"no class code on the lecturer's view: {run.texts[:6]}"))
            return
        room.lesson = lesson_of(run)
        ready.set_result(code)
        timers = asyncio.create_task(b.timers())
        try:
            for r in range(rounds):
                await _all_answered(b, room, tally)
                if r == 0 and idle > 0:
                    await _idle_window(b, room, tally, idle, cpu)
                room.revealed_at = time.monotonic()  # before the click: a student's refresh may see it first
                b.saw(tally.act("reveal", await s.click("class_reveal"), "lecturer"))
                await _room(room, room.saw_reveal, tally, "the reveal")
                if r == rounds - 1:
                    break
                room.revealed_at, room.saw_reveal = None, set()
                room.lesson, room.moved_at = (room.lesson or 0) + 1, time.monotonic()
                run = b.saw(tally.act("next", await s.click("class_next"), "lecturer"))
                b.fragment_runs.clear()  # the last lesson's tally is not this one's
                if lesson_of(run) != room.lesson:
                    tally.failures.append(("lecturer", f"Next lesson showed {lesson_of(run)}, not {room.lesson}"))
                await _room(room, room.followed, tally, "the next lesson")
                room.followed.clear()
        finally:
            b.stop.set()
            await timers


async def _all_answered(b: Browser, room: Room, tally: Tally) -> None:
    """Wait until the lecturer's live tally (its refreshes) shows every student's answer."""
    want = str(room.students)
    deadline = time.monotonic() + WAIT_S + 10
    while time.monotonic() < deadline:
        shown = [r.metrics.get("Answered") for r in [*b.fragment_runs, b.page] if r is not None]
        if want in shown:
            return
        await asyncio.sleep(0.2)
    tally.failures.append(("lecturer", f"the tally never showed {want} answered: {shown}"))


async def _idle_window(b: Browser, room: Room, tally: Tally, seconds: float, cpu) -> None:
    """Nobody acts for ``seconds``: every refresh finds nothing new; the server's CPU per refresh."""
    browsers = room.browsers + [b]
    for x in browsers:
        x.count_idle, x.idle_refreshes = True, 0
    cpu0, t0, full0 = cpu(), time.monotonic(), tally.full_refreshes
    await asyncio.sleep(seconds)
    used, wall = cpu() - cpu0, time.monotonic() - t0
    for x in browsers:
        x.count_idle = False
    refreshes = sum(x.idle_refreshes for x in browsers)
    tally.idle = {"seconds": wall, "refreshes": refreshes, "cpu": used, "redrawn": tally.full_refreshes - full0}


async def _room(room: Room, group: set, tally: Tally, what: str) -> None:
    """Wait until every student's page showed ``what``."""
    deadline = time.monotonic() + WAIT_S + 10
    while len(group) < room.students and time.monotonic() < deadline:
        room.changed.clear()
        try:
            await asyncio.wait_for(room.changed.wait(), 1.0)
        except TimeoutError:
            pass
    if len(group) < room.students:
        tally.failures.append(("lecturer", f"{room.students - len(group)} students never showed {what}"))


async def student(url: str, code: str, k: int, rng: random.Random, tally: Tally, room: Room, rounds: int,
                  arrive: float, opened: list, think: tuple[float, float] = (2, 8)) -> None:
    """One student through ``rounds`` lessons of the class."""
    await asyncio.sleep(rng.uniform(0, arrive))
    async with Session(url, "lessons", query=f"class={code}") as s:
        who = f"student {k}"
        b = Browser(s, tally, who)
        room.browsers.append(b)
        run = b.saw(tally.act("open", await s.load(), who))
        if "student=" not in s.query or lesson_of(run) is None:
            tally.failures.append((who, f"no id or no lesson after opening: {s.query!r} {run.texts[:3]}"))
            return
        opened.append(k)
        timers = asyncio.create_task(b.timers())
        try:
            for r in range(rounds):
                await _answer(b, rng, tally, who, think)
                if not await b.until(lambda p: feedback_of(p) is not None, "the reveal"):
                    return
                if room.revealed_at:
                    room.follow["reveal"].append(time.monotonic() - room.revealed_at)
                room.saw(room.saw_reveal, k)
                if r == rounds - 1:
                    break
                was = lesson_of(b.page)
                if not await b.until(lambda p, was=was: lesson_of(p) not in (None, was), "the next lesson"):
                    return
                if room.moved_at:
                    room.follow["move"].append(time.monotonic() - room.moved_at)
                if lesson_of(b.page) != room.lesson:
                    tally.failures.append((who, f"followed to lesson {lesson_of(b.page)}, not {room.lesson}"))
                room.saw(room.followed, k)
        finally:
            b.stop.set()
            await timers


async def _answer(b: Browser, rng: random.Random, tally: Tally, who: str, think: tuple[float, float]) -> None:
    """Think (``think`` s: from, to), predict (a random choice or number), press Check; the page must say the
    answer was sent."""
    await asyncio.sleep(rng.uniform(*think))
    s = b.s
    kind, proto = next(((kind, p) for w, (kind, p) in s.widgets.items()
                        if w.endswith("_prediction") and kind in ("radio", "number_input")), (None, None))
    if kind is None:
        tally.failures.append((who, f"no prediction on the page: {sorted(s.widgets)}, page {lesson_of(b.page)}: "
                                    f"{b.page.texts[-4:] if b.page else None}"))
        return
    key = proto.id.rsplit("-", 1)[-1]
    if kind == "radio":
        b.saw(tally.act("predict", await s.choose(key, rng.choice(list(proto.options))), who))
    else:
        b.saw(tally.act("predict", await s.type_number(key, float(rng.randint(0, 150))), who))
    run = b.saw(tally.act("check", await s.click("class_check"), who))
    if not any(kind == "success" and body.startswith("Sent") for kind, body in run.alerts):
        tally.failures.append((who, f"Check did not say sent: {run.alerts[:2]}"))


async def run_class(url: str, students: int, rounds: int, arrive: float, idle: float, seed: int, cpu,
                    think: tuple[float, float] = (2, 8)) -> Tally:
    """A lecturer and ``students`` students through ``rounds`` lessons; ``cpu()`` reads the server's CPU seconds;
    ``think``: how long a student takes to predict (uniform, seconds)."""
    rng = random.Random(seed)
    tally = Tally()
    room = Room(students, tally.follow)
    ready: asyncio.Future = asyncio.get_running_loop().create_future()
    teacher = asyncio.create_task(lecturer(url, tally, ready, room, rounds, idle, cpu))
    code = await ready
    opened: list = []
    await asyncio.gather(*(student(url, code, k, random.Random(rng.random()), tally, room, rounds, arrive, opened,
                                   think) for k in range(students)), teacher)
    return tally
