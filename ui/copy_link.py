"""A "Copy link" button that really copies the current view's URL, then confirms with a toast.

Streamlit has no clipboard API, so this is a small ``st.components.v2`` component running in the app page: on
click it copies ``window.location.href`` — the URL as it is *now*, which the app keeps in sync with the settings
after every run, fragment reruns included (a link rendered by the server would be stale after those) — and sends
a trigger back so Python shows the toast. The clipboard API needs a secure context (https or localhost); on
plain http (a classroom server on a LAN address) it falls back to a hidden text field and ``execCommand``,
and if both fail the toast says so. The current link is also shown, small, under the button: a read-only text
box that scrolls when the link is long, so it takes the keyboard focus (Tab) as a scrollable region must (axe's
scrollable-region-focusable).
"""
from __future__ import annotations

import streamlit as st

_HTML = ('<button type="button" class="copy">Copy link to this view</button>'
         '<div class="link" title="The settings of this view, never your data" tabindex="0" role="textbox"'
         ' aria-readonly="true" aria-multiline="true" aria-label="Link to this view"></div>')
_CSS = """
.copy { width: 100%; padding: 0.4rem 0.75rem; border-radius: 0.5rem; border: 1px solid rgba(49, 51, 63, 0.2);
        background: #fff; color: inherit; font: inherit; font-size: 0.95rem; cursor: pointer; }
.copy:hover { border-color: #4A4A4A; }
.link:focus-visible { outline: 2px solid #4A4A4A; outline-offset: 1px; }
.link { margin-top: 0.3rem; font-size: 0.72rem; color: #6b6b6b; word-break: break-all; user-select: all;
        max-height: 4.5em; overflow-y: auto; }
"""
_JS = """
export default function (component) {
  const { parentElement, setTriggerValue } = component;
  const button = parentElement.querySelector("button.copy");
  const shown = parentElement.querySelector(".link");
  const show = () => { if (shown) shown.textContent = window.location.href; };
  show();
  const timer = setInterval(show, 1000);  // the URL changes after fragment reruns too
  if (!button || button.dataset.bound) return () => clearInterval(timer);
  button.dataset.bound = "1";
  const fallback = (text) => {
    const field = document.createElement("textarea");
    field.value = text;
    field.setAttribute("readonly", "");
    field.style.position = "fixed";
    field.style.opacity = "0";
    document.body.appendChild(field);
    field.select();
    let ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(field);
    return ok;
  };
  button.addEventListener("click", async () => {
    const link = window.location.href;
    let ok = false;
    if (navigator.clipboard && window.isSecureContext) {
      try { await navigator.clipboard.writeText(link); ok = true; } catch (e) { ok = false; }
    }
    if (!ok) ok = fallback(link);
    setTriggerValue(ok ? "copied" : "failed", link);
  });
  return () => clearInterval(timer);
}
"""

_component = st.components.v2.component("lmdk_copy_link", html=_HTML, css=_CSS, js=_JS)


def copy_link_button(key: str = "copy_link") -> None:
    """The button; after a click, a toast saying the link was copied (or could not be)."""
    result = _component(key=key, on_copied_change=lambda: None, on_failed_change=lambda: None)
    if getattr(result, "copied", None):
        st.toast("Link copied. It holds this view's settings, never your data.", icon=":material/link:")
    elif getattr(result, "failed", None):
        st.toast("Your browser did not allow copying: select the link under the button and copy it.",
                 icon=":material/content_copy:")
