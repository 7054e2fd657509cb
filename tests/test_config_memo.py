"""ui.config_memo: Streamlit's config sections kept between config changes, never stale after one."""
from streamlit import config

from ui import config_memo


def test_sections_are_streamlits_and_each_caller_gets_its_own():
    before = config.get_options_for_section("theme")
    config_memo.install()
    config_memo.install()  # a second call wraps nothing twice
    assert getattr(config.get_options_for_section, "lmdk_memo", False)
    first = config.get_options_for_section("theme")
    assert first == before
    first["primaryColor"] = "#000000"  # a caller's change stays its own
    assert config.get_options_for_section("theme") == before


def test_setting_an_option_is_seen_at_once():
    config_memo.install()
    old = config.get_option("theme.primaryColor")
    try:
        config.get_options_for_section("theme")  # kept
        config.set_option("theme.primaryColor", "#123456")
        assert config.get_options_for_section("theme")["primaryColor"] == "#123456"
    finally:
        config.set_option("theme.primaryColor", old)
    assert config.get_options_for_section("theme")["primaryColor"] == old


def test_a_new_parse_of_the_config_is_seen():
    config_memo.install()
    config.get_options_for_section("theme")
    assert config_memo._MEMO
    config._on_config_parsed.send()  # what Streamlit does when it reads the config files again
    assert not config_memo._MEMO
