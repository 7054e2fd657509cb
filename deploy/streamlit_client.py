"""A headless Streamlit client for load measurements and a replica's warming (deploy/warm.py): speaks the app's

A browser session is a websocket to ``/_stcore/stream`` carrying protobuf ``BackMsg`` (client → server) and
``ForwardMsg`` (server → client) frames. This client sends what the browser sends on page load and on a widget
change (a ``rerun_script`` with the page and the changed widget's state) and times the server's answer until
``script_finished``. It keeps no DOM and draws no chart, so what it measures is the server's work plus loopback
transport — the cost a classroom of real browsers puts on the server, with their rendering excluded.

Like a browser, it keeps the state of every widget it set and sends it with every rerun (a button's trigger only
once), and it keeps the page's ``st.fragment(run_every=…)`` timers: a run's ``auto_rerun`` message (fragment id,
interval) arms one, a full run of the page drops them all before re-arming its own, and a refresh is a
``rerun_script`` naming the fragment id with ``is_auto_rerun`` set (Streamlit's App.handleAutoRerun →
WidgetStateManager.sendUpdateWidgetsMessage(fragmentId, true)). ``Session.due`` says which refresh is next;
the caller decides when to send it (benchmarks/class_load.py runs them on the fragments' clock).
"""
from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from urllib.parse import urlparse

from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import connect

DONE = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}
ALERTS = {Alert.ERROR: "error", Alert.WARNING: "warning", Alert.INFO: "info", Alert.SUCCESS: "success"}


@dataclass
class Run:
    """What one server run sent back: wall time, bytes, the sliders and chart specs it drew, and any exception."""

    seconds: float
    bytes: int = 0
    sliders: dict = field(default_factory=dict)  # widget id -> Slider proto
    charts: list = field(default_factory=list)  # Plotly JSON specs (str)
    exceptions: list = field(default_factory=list)
    texts: list = field(default_factory=list)  # alerts and markdown, to say what arrived when a widget did not
    widgets: dict = field(default_factory=dict)  # widget id -> (kind, proto): radios, number inputs, buttons
    metrics: dict = field(default_factory=dict)  # st.metric label -> its value as shown
    alerts: list = field(default_factory=list)  # (kind: success/warning/info/error, body)
    full: bool = False  # a full run of the page happened (a fragment's st.rerun(scope="app") included)


class Session:
    """One browser-like session of a Streamlit app (use ``async with Session(url) as s``)."""

    def __init__(self, base_url: str, page: str = "", query: str = ""):
        self.base_url, self.page, self.query = base_url.rstrip("/"), page, query
        self.sliders: dict = {}
        self.widgets: dict = {}  # widget id -> (kind, proto) of every radio, number input and button seen
        self.states: dict = {}  # widget id -> WidgetState: what this "browser" shows, sent with every rerun
        self.auto_reruns: dict = {}  # fragment id -> (interval s, next due on the monotonic clock): run_every
        self.page_hash = ""
        self._ws = None
        self._lock = asyncio.Lock()  # one run at a time per session, as one browser tab's requests queue

    async def __aenter__(self) -> Session:
        host = urlparse(self.base_url).netloc
        self._ws = await connect(f"ws://{host}/_stcore/stream", subprotocols=["streamlit"],
                                 origin=self.base_url, max_size=None, compression=None,
                                 ping_interval=None, open_timeout=120)
        # as a browser: no keepalive pings, whose 20 s timeout closed sessions of a loaded server (1011 keepalive
        # ping timeout) while it was still working on their run; and a browser waits for a busy server's handshake
        # longer than websockets' 10 s (100 sessions opening at once on a slow machine timed out)
        return self

    async def __aexit__(self, *exc) -> None:
        await self._ws.close()

    async def load(self, expect: str | None = None, attempts: int = 5) -> Run:
        """Open the page as a browser does on first load (no widget states). With ``expect`` (a widget key suffix),
        wait for the page that has it: a fresh server's first run of a session may be its entry run (ui's
        ensure_entrypoint reruns once) or land before the page's state exists, so the page is asked for again, up
        to ``attempts`` times; then a RuntimeError says what arrived instead. Opening time is the sum."""
        run = await self._rerun({})
        total = run.seconds
        for _ in range(attempts - 1):
            if expect is None or self._widget(expect) is not None:
                break
            run = await self._rerun({})
            total += run.seconds
        if expect is not None and self._widget(expect) is None:
            raise RuntimeError(f"page {self.page!r} did not show the widget {expect!r} after {attempts} loads; it "
                               f"sent sliders {sorted(self.sliders)}, texts {run.texts[:5]}, exceptions "
                               f"{run.exceptions}")
        run.seconds = total
        return run

    def _widget(self, key: str) -> str | None:
        """The id of the slider whose widget key ends in ``key``, or None."""
        return next((w for w in self.sliders if w.endswith(key)), None)

    async def set_slider(self, key: str, label: str) -> Run:
        """Move the select_slider whose widget key ends in ``key`` to the option shown as ``label``."""
        widget = self._slider(key)
        options = list(self.sliders[widget].options)
        if label not in options:
            raise ValueError(f"{label!r} is not an option of {key}: {options}")
        return await self._rerun({widget: [label]})

    def _slider(self, key: str) -> str:
        """The id of the slider whose widget key ends in ``key``; a RuntimeError naming what the page has."""
        widget = self._widget(key)
        if widget is None:
            raise RuntimeError(f"no slider {key!r} on page {self.page!r}; it has {sorted(self.sliders)}")
        return widget

    def options(self, key: str) -> list[str]:
        """The option labels of the select_slider whose widget key ends in ``key``."""
        return list(self.sliders[self._slider(key)].options)

    def widget(self, key: str, kind: str | None = None) -> str:
        """The id of the widget (radio, number input, button) whose key ends in ``key``; a RuntimeError naming
        what the page has."""
        found = next((w for w, (k, _) in self.widgets.items() if w.endswith(key) and kind in (None, k)), None)
        if found is None:
            raise RuntimeError(f"no widget {key!r} on page {self.page!r}; it has {sorted(self.widgets)}")
        return found

    async def choose(self, key: str, option: str) -> Run:
        """Pick ``option`` in the radio whose key ends in ``key`` (a browser sends the option's label)."""
        widget = self.widget(key, "radio")
        options = list(self.widgets[widget][1].options)
        if option not in options:
            raise ValueError(f"{option!r} is not an option of {key}: {options}")
        return await self._rerun({widget: _state(widget, string_value=option)})

    async def type_number(self, key: str, value: float) -> Run:
        """Enter ``value`` in the number input whose key ends in ``key``."""
        widget = self.widget(key, "number_input")
        return await self._rerun({widget: _state(widget, double_value=float(value))})

    async def click(self, key: str) -> Run:
        """Press the button whose key ends in ``key``: its trigger is sent once, as a browser does."""
        widget = self.widget(key, "button")
        return await self._rerun({}, triggers=[_state(widget, trigger_value=True)])

    def due(self) -> tuple[float, str] | None:
        """(monotonic time, fragment id) of the next automatic fragment refresh the page asked for, or None."""
        return min(((at, fragment) for fragment, (_, at) in self.auto_reruns.items()), default=None)

    async def refresh(self, fragment: str, timeout: float = 60.0) -> Run:
        """One automatic refresh of a ``run_every`` fragment, as the browser's timer sends it (a rerun of that
        fragment id with every widget's state, ``is_auto_rerun``); the next one is due an interval later."""
        interval, at = self.auto_reruns[fragment]
        self.auto_reruns[fragment] = (interval, max(at + interval, time.monotonic()))
        return await asyncio.wait_for(self._rerun({}, fragment=fragment), timeout)

    async def _rerun(self, string_arrays: dict, triggers: tuple = (), fragment: str = "") -> Run:
        async with self._lock:
            return await self._run_locked(string_arrays, triggers, fragment)

    async def _run_locked(self, changed: dict, triggers, fragment: str) -> Run:
        for widget, value in changed.items():
            self.states[widget] = value if not isinstance(value, list) else _state(widget, strings=value)
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query
        state.page_script_hash = self.page_hash
        state.page_name = "" if self.page_hash else self.page
        if fragment:
            state.fragment_id, state.is_auto_rerun = fragment, True
        state.widget_states.widgets.extend([*self.states.values(), *triggers])
        t0 = time.perf_counter()
        await self._ws.send(msg.SerializeToString())
        run = Run(0.0)
        while True:
            frame = await self._ws.recv()
            run.bytes += len(frame)
            fwd = ForwardMsg.FromString(frame)
            kind = fwd.WhichOneof("type")
            if kind == "navigation":
                self.page_hash = self.page_hash or _page_hash(fwd.navigation.app_pages, self.page)
            elif kind == "page_info_changed":
                self.query = fwd.page_info_changed.query_string
            elif kind == "new_session" and not fwd.metadata.run.fragment_ids:  # (1.67: the run's identity)
                run.full = True  # a full run: the browser drops every fragment timer, the run re-arms its own
                self.auto_reruns.clear()
            elif kind == "auto_rerun":
                fid, interval = fwd.auto_rerun.fragment_id, fwd.auto_rerun.interval
                if self.auto_reruns.get(fid, (None,))[0] != interval:
                    self.auto_reruns[fid] = (interval, time.monotonic() + interval)
            elif kind == "stop_auto_rerun":
                for fid in fwd.stop_auto_rerun.fragment_ids:
                    self.auto_reruns.pop(fid, None)
            elif kind == "delta":
                _collect(fwd, run)
            elif kind == "script_finished":
                if fwd.script_finished in DONE:
                    run.seconds = time.perf_counter() - t0
                    self.sliders.update(run.sliders)
                    if run.full:  # a full run draws the whole page: widgets it did not draw are gone
                        self.widgets = {}
                        self.states = {w: v for w, v in self.states.items() if w in run.widgets or w in run.sliders}
                    self.widgets.update(run.widgets)
                    return run
                if fwd.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    raise RuntimeError("the app did not compile")


def _state(widget: str, strings: list | None = None, **value):
    """A WidgetState proto of ``widget`` holding one value (``string_value=…``, ``trigger_value=True``, …) or a
    string array (a select_slider's)."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    state = WidgetState(id=widget, **value)
    if strings is not None:
        state.string_array_value.data.extend(strings)
    return state


def _page_hash(pages, page: str) -> str:
    """The script hash of the page whose URL path is ``page`` (the app's default page when empty)."""
    for p in pages:
        if p.url_pathname == page or (not page and p.is_default):
            return p.page_script_hash
    return ""


def _collect(fwd, run: Run) -> None:
    element = fwd.delta.new_element
    kind = element.WhichOneof("type")
    if kind == "slider":
        run.sliders[element.slider.id] = element.slider
    elif kind == "plotly_chart":
        run.charts.append(element.plotly_chart.spec)
    elif kind == "exception":
        run.exceptions.append(element.exception.message)
    elif kind in ("radio", "number_input", "button"):
        proto = getattr(element, kind)
        run.widgets[proto.id] = (kind, proto)
    elif kind == "metric":
        run.metrics[element.metric.label] = element.metric.body
    elif kind == "alert":
        run.texts.append(element.alert.body)
        run.alerts.append((ALERTS.get(element.alert.format, "alert"), element.alert.body))
    elif kind == "markdown":
        run.texts.append(element.markdown.body[:200])
    elif kind == "heading":
        run.texts.append(element.heading.body[:200])


def chart_epsilons(run: Run) -> set[float]:
    """The ε recorded in the ``layout.meta`` of every chart of a run (ui.charts puts it there)."""
    found = set()
    for spec in run.charts:
        meta = json.loads(spec).get("layout", {}).get("meta")
        meta = meta[0] if isinstance(meta, list) and meta else meta
        if isinstance(meta, dict) and "eps" in meta:
            found.add(float(meta["eps"]))
    return found


async def _demo(url: str) -> None:
    async with Session(url, "schemes_utility") as s:
        first = await s.load(expect="w_eps")
        print(f"load {first.seconds:.2f} s, {first.bytes / 1e6:.1f} MB, sliders {list(s.sliders)}")
        run = await s.set_slider("w_eps", s.options("w_eps")[0])
        print(f"ε change {run.seconds:.2f} s, charts at ε {chart_epsilons(run)}")


if __name__ == "__main__":
    import sys

    asyncio.run(_demo(sys.argv[1]))
