"""AppTest: beside every ε control (lessons, Schemes & utility, Policies, Overview, Population, Spatiotemporal events)
a caption says what that ε means — the belief bound and where it sits among published deployments, with the source —
and it follows the control when ε moves (issue 56)."""
from __future__ import annotations

import app_support
from app_support import navigation_mode  # noqa: F401 (autouse fixture)

from lmdk.epsilon_meaning import DEPLOYMENTS, SOURCE, meaning
from ui.session import state

MARK = "an attacker's 50 % guess"


def leaves(node) -> list:
    """The elements under ``node`` in reading order (depth first), blocks left out."""
    kids = getattr(node, "children", None)
    if kids is None:
        return [node]
    return [e for key in sorted(kids) for e in leaves(kids[key])]


def unescaped(text: str) -> str:
    """Markdown as a reader sees it (backslash escapes removed)."""
    return text.replace("\\", "")


def meaning_captions(root) -> list[str]:
    """The ε captions under ``root``, in reading order."""
    return [unescaped(str(e.value)) for e in leaves(root) if getattr(e, "type", "") == "caption"
            and MARK in str(e.value)]


def assert_beside(root, control_key: str, epsilon: float, within: int = 3) -> None:
    """The caption of ``epsilon`` follows the control ``control_key`` within a few elements, in the same area."""
    order = leaves(root)
    at_control = next(i for i, e in enumerate(order) if getattr(e, "key", None) == control_key)
    after = [e for e in order[at_control + 1:at_control + 1 + within] if getattr(e, "type", "") == "caption"]
    texts = [unescaped(str(e.value)) for e in after]
    expected = f"ε = {epsilon:g}: {MARK}"
    assert any(t.startswith(expected) for t in texts), (control_key, texts)
    shown = next(t for t in texts if t.startswith(expected))
    assert meaning(epsilon).position in shown and f"{SOURCE.publisher} {SOURCE.name}" in shown
    tooltip = next(e for e in after if unescaped(str(e.value)) == shown).help  # the table and the source's link
    assert SOURCE.url in tooltip and all(f"| {d.epsilon:g} |" in tooltip for d in DEPLOYMENTS)


def test_schemes_page_caption_follows_the_sidebar_slider_even_on_a_fragment_rerun():
    at = app_support.open_page("pages/schemes_utility.py", 300)
    key = state.widget_key(state.EPSILON)
    assert_beside(at.sidebar, key, at.select_slider(key=key).value)
    at.select_slider(key=key).set_value(5.0).run()
    assert not at.exception, at.exception
    # An ε change reruns only the results fragment (ui.widgets.rerun_fragment_on), which leaves the sidebar as it
    # was: the caption is a fragment of its own, rerun with it, or it would still say the previous ε.
    assert [c.split(":")[0] for c in meaning_captions(at.sidebar)] == ["ε = 5"]
    assert "between ε 4" in meaning_captions(at.sidebar)[0]
    at.run()  # a full run draws it beside the slider again
    assert_beside(at.sidebar, key, 5.0)
    assert len(meaning_captions(at.sidebar)) == 1 and not meaning_captions(at.main)


def test_the_overview_caption_follows_its_slider():
    at = app_support.run_app(120)
    assert_beside(at.main, "home_eps", 1.0)
    at.select_slider(key="home_eps").set_value(10.0).run()
    assert_beside(at.main, "home_eps", 10.0)
    assert "between ε 9.98" in meaning_captions(at.main)[0]


def test_the_policies_page_explains_the_users_epsilon_and_the_officers_bound():
    at = app_support.open_page("pages/policies.py", 60)
    assert_beside(at.main, "policy_eps", 1.0, within=4)  # the ε column, then the scheme column, then the caption
    assert not meaning_captions(at.sidebar)  # no bound set: nothing to explain
    at.number_input(key="policy_eps").set_value(4.0)
    at.number_input(key="policy_max_eps").set_value(40.0).run()
    assert not at.exception, at.exception
    assert_beside(at.main, "policy_eps", 4.0, within=4)
    assert_beside(at.sidebar, "policy_max_eps", 40.0)
    assert "the same as ε 4" in meaning_captions(at.main)[0]
    assert "above all" in meaning_captions(at.sidebar)[0]


def test_population_and_spatiotemporal_pages_explain_their_epsilon():
    at = app_support.open_page("pages/population.py", 120)
    key = state.widget_key(state.EPSILON)
    assert_beside(at.sidebar, key, at.select_slider(key=key).value)
    at.select_slider(key=key).set_value(2.0).run()
    assert_beside(at.sidebar, key, 2.0)
    at = app_support.open_page("pages/spatiotemporal_events.py", 300)
    key = state.widget_key(state.ST_EPSILON)
    assert_beside(at.sidebar, key, at.select_slider(key=key).value)


def lessons_with_and_without_epsilon():
    """A lesson with an ε setting and one without (found, not numbered: the lessons get reordered)."""
    from lmdk.lessons import LESSONS

    with_eps = next(x for x in LESSONS if any(s.key.startswith("eps") for s in x.settings))
    without = next(x for x in LESSONS if not any(s.key.startswith("eps") for s in x.settings))
    return with_eps, without


def test_a_lessons_epsilon_setting_gets_the_caption_and_it_moves_with_it():
    x, _ = lessons_with_and_without_epsilon()
    at = app_support.open_page("pages/lessons.py", 120, lesson=str(x.number))
    setting = next(s for s in x.settings if s.key.startswith("eps"))
    key = f"lessons_{x.number}_{setting.key}"
    assert_beside(at.main, key, setting.default, within=len(x.settings) + 1)
    other = next(v for v in setting.options if v != setting.default)
    at.select_slider(key=key).set_value(other).run()
    assert not at.exception, at.exception
    assert_beside(at.main, key, other, within=len(x.settings) + 1)
    assert len(meaning_captions(at.main)) == sum(s.key.startswith("eps") for s in x.settings)


def test_a_lesson_without_an_epsilon_setting_has_no_caption():
    _, x = lessons_with_and_without_epsilon()
    at = app_support.open_page("pages/lessons.py", 120, lesson=str(x.number))
    assert not meaning_captions(at.main)
