"""Follow the run: while a run streams, the page scrolls to its newest step; it stops when the person
scrolls up, and a "jump to latest" button brings it back. Playground, Compare and Replay (playing).

Streamlit cannot scroll a page from Python, so a small script of our own does it in the browser
(st.html with JavaScript: not iframed, so it reaches the page's own scroller; nothing is fetched).
The script is installed once per page load and reads what to follow from marks the pages draw:
`<span class="apg-follow" data-area=… data-live=…>` in an element of the run area. A mark counts
while its element is fresh; the next script run makes it stale at once, so following ends with the
live drawing. Only run areas are read; no run text or user text goes into the script.

"Jump to latest" shows only while the newest step is out of view (not at a pause at the bottom of
the page). A run that ends while the page follows it has its answer and end badge brought into view
once the finished run is redrawn (they come with that redraw, below where the live drawing ended);
a person's scroll up cancels that, as it stops following. The step-mode pause bar, stuck to the
bottom of the screen, is never taken for a step and counts as covering what is under it.

While a run is live the script also keeps the run area's column from shrinking (a streamed reply
replaced by its caption, a graph redrawn), and holds that height after the run until the next one
starts: the page never jumps, and a person reading the bottom of the page stays there.
"""

from __future__ import annotations

import html

import streamlit as st

from .i18n import t

#: the mark's class, read by the script and the browser tests
MARK = "apg-follow"
#: the pause bar (step_view.banner): keyed `<prefix>_pause`, it is no step to follow and covers the
#: bottom of the screen
PAUSE_BAR = '[class*="_pause "], [class$="_pause"]'
#: how long after a followed run ends the script waits for its redrawn answer to bring it into view
SETTLE_MS = 8000

_SCRIPT = r"""
<script>
(() => {
  if (window.__apgFollow) return;
  const S = window.__apgFollow = {follow: true, wasLive: false, last: 0, quiet: 0, button: null, areas: [], settle: 0};
  const main = () => document.querySelector('[data-testid=stMain]');
  const fresh = (el) => { const box = el.closest('[data-stale]'); return !box || box.dataset.stale !== 'true'; };
  const liveMarks = () => [...document.querySelectorAll('.%(mark)s[data-live="1"]')].filter(fresh);
  const areaOf = (mark) => document.querySelector('.st-key-' + CSS.escape(mark.dataset.area));
  // the pause bar (step mode) sticks to the bottom of the screen: it is no step, and it hides what is under it
  const bar = () => [...document.querySelectorAll('%(bar)s')].find((b) => b.offsetParent && fresh(b));
  const newest = (area) => {
    // the lowest visible step block, or the area itself when no block is drawn yet
    let best = null, low = -Infinity;
    for (const el of area.querySelectorAll('[data-testid=stExpander], [class*="-final"], [class*="-end-"]')) {
      if (!el.offsetParent || el.closest('%(bar)s')) continue;
      const r = el.getBoundingClientRect();
      if (r.height > 0 && r.bottom > low) { low = r.bottom; best = el; }
    }
    return best || area;
  };
  // what of the page a person can see: below the header and a stuck head (presenter mode), above the
  // pause bar
  const seen = () => {
    const m = main(), r = m.getBoundingClientRect();
    let top = r.top, bottom = r.top + m.clientHeight;
    const header = document.querySelector('[data-testid=stHeader]');
    if (header) top = Math.max(top, header.getBoundingClientRect().bottom);
    for (const head of document.querySelectorAll('[data-testid=stLayoutWrapper]:has(> [class*="_view-headline"])')) {
      const h = head.getBoundingClientRect();
      if (getComputedStyle(head).position === 'sticky' && h.top <= top + 8 && h.bottom > top) top = h.bottom;
    }
    const b = bar();
    if (b) bottom = Math.min(bottom, b.getBoundingClientRect().top);
    return [top, bottom];
  };
  const lowest = (marks) => {
    let target = null, low = -Infinity;
    for (const mark of marks) {
      const area = areaOf(mark);
      const el = area && newest(area);
      if (el && el.getBoundingClientRect().bottom > low) { low = el.getBoundingClientRect().bottom; target = el; }
    }
    return target;
  };
  const stop = () => {
    S.settle = 0;
    if (S.wasLive && S.follow) { S.follow = false; show(); }
  };
  const resume = () => { S.follow = true; hide(); tick(true); };
  const show = () => {
    const mark = liveMarks()[0];
    if (!mark) return;
    if (!S.button) {
      const b = S.button = document.createElement('button');
      b.className = 'apg-jump';
      b.type = 'button';
      b.style.cssText = 'position: fixed; right: 2rem; bottom: 2rem; z-index: 999992; padding: 0.6rem 1.1rem; ' +
        'border-radius: 999px; border: 0; background: #4F46E5; color: #fff; font: 600 1rem sans-serif; ' +
        'box-shadow: 0 4px 14px rgba(0,0,0,0.25); cursor: pointer;';
      b.addEventListener('click', resume);
      document.body.appendChild(b);
    }
    S.button.textContent = '↓ ' + (mark.dataset.label || '');
    // no way to the latest step while the latest step is in view (a pause at the bottom of the page)
    const target = lowest(liveMarks());
    const [, bottom] = seen();
    const there = target && target.getBoundingClientRect().bottom <= bottom + 2;
    S.button.style.display = there ? 'none' : 'block';
  };
  const hide = () => { if (S.button) S.button.style.display = 'none'; };
  // a person's own scrolling up (wheel, keys, touch, the scrollbar, a control scrolled into view)
  // stops following; back at the bottom, it follows again
  document.addEventListener('wheel', (e) => { if (e.deltaY < 0) stop(); }, {passive: true, capture: true});
  document.addEventListener('keydown', (e) => {
    const typing = e.target && e.target.closest && e.target.closest('input, textarea, [contenteditable]');
    if (!typing && ['ArrowUp', 'PageUp', 'Home'].includes(e.key)) stop();
  }, true);
  document.addEventListener('touchmove', () => stop(), {passive: true, capture: true});
  document.addEventListener('scroll', (e) => {
    const m = main();
    if (!m || e.target !== m) return;
    // this script only ever scrolls down, and a live run's column never shrinks (see tick): any move
    // up is the person's (the scrollbar, find in page, a control scrolled into view)
    if (m.scrollTop < S.last - 2 && performance.now() > S.quiet) stop();
    S.last = m.scrollTop;
    if (!S.follow && S.wasLive && m.scrollHeight - m.scrollTop - m.clientHeight < 8) resume();
  }, true);
  // The end of a followed run: its answer and its end badge (drawn by the finished run's redraw)
  // come into view, the answer's top never under the head; only ever down, and a person's scroll up
  // ends it.
  const settleEnd = (m) => {
    for (const key of S.areas) {
      const area = document.querySelector('.st-key-' + CSS.escape(key));
      if (!area) continue;
      const ends = [...area.querySelectorAll('[class*="-final"], [class*="-end-"]')]
        .filter((el) => el.offsetParent && fresh(el) && el.getBoundingClientRect().height > 0);
      if (!ends.length) continue;
      const [top, bottom] = seen();
      const first = Math.min(...ends.map((el) => el.getBoundingClientRect().top));
      const last = Math.max(...ends.map((el) => el.getBoundingClientRect().bottom));
      const gap = Math.min(last - bottom + 24, first - top - 16);
      if (gap > 1) m.scrollTop = m.scrollTop + gap;
    }
  };
  const tick = (now) => {
    const m = main(), marks = liveMarks(), live = marks.length > 0;
    const release = (held) => { held.style.minHeight = ''; delete held.dataset.apgHeld; };
    if (live && !S.wasLive) {  // a new run: follow it, and let go of the last run's height
      S.follow = true; hide();
      document.querySelectorAll('[data-apg-held]').forEach(release);
      S.quiet = performance.now() + 1000;  // the page settles to the new run: its moves are not the person's
    }
    if (!live && S.wasLive) {
      hide();
      // the run ended while the page followed it: its answer and end come in the redraw that follows
      if (S.follow) S.settle = performance.now() + %(settle_ms)d;
    }
    S.wasLive = live;
    if (live) S.areas = marks.map((mark) => mark.dataset.area);
    if (live && !S.follow) show();
    for (const mark of marks) {
      const area = areaOf(mark);
      if (!area) continue;
      // No shrinking while live: the column keeps its tallest height, and keeps it after the run
      // (its redraw may be a line shorter than the last live frame) until the next run starts.
      const hold = area.parentElement;
      const h = area.getBoundingClientRect().height;
      if (hold && h > (parseFloat(hold.style.minHeight) || 0)) hold.style.minHeight = h + 'px';
      if (hold) hold.dataset.apgHeld = mark.dataset.area;
    }
    // a held place that no longer holds its run area (another page, another view) is let go at once
    for (const held of document.querySelectorAll('[data-apg-held]')) {
      if (!held.querySelector('.st-key-' + CSS.escape(held.dataset.apgHeld))) release(held);
    }
    if (live && S.follow && m) {
      const target = lowest(marks), b = bar();
      // at a pause, the bar is the run area's last element: the page follows to it, so the bar rests
      // in its place below the newest step instead of covering what came last
      const paused = b && marks.map(areaOf).find((area) => area && area.contains(b));
      if (paused) {
        const gap = paused.getBoundingClientRect().bottom - (m.getBoundingClientRect().top + m.clientHeight) + 24;
        if (gap > 1) m.scrollTop = m.scrollTop + gap;
      } else if (target) {
        const gap = target.getBoundingClientRect().bottom - seen()[1] + 24;
        if (gap > 1) {  // only ever down: the newest step comes into view from below
          m.scrollTop = m.scrollTop + gap;
        }
      }
    }
    if (!live && S.settle && m) {
      if (performance.now() > S.settle) S.settle = 0;
      else settleEnd(m);
    }
    if (now !== true) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();
</script>
"""


_VALUES = {"mark": MARK, "bar": PAUSE_BAR, "settle_ms": SETTLE_MS}


def mark(area_key: str, *, live: bool) -> None:
    """Draw the mark that tells the script to follow the keyed run area `area_key` while `live`.

    Call it at the same place whether the run is live or redrawn: the element is there either way,
    so a live view and its redraw keep the same element tree.
    """
    label = html.escape(t("follow.jump"), quote=True)
    area = html.escape(area_key, quote=True)
    # hidden by its container's key: a `:has(.mark)` rule on every element container made the browser
    # re-check its ancestors on each of a redraw's hundreds of insertions (+0.3 s on a fork's redraw)
    hide = f"<style>[class*='st-key-{MARK}-'] {{ display: none; }}</style>"
    with st.container(key=f"{MARK}-{area_key}"):
        st.html(
            f'{hide}<span class="{MARK}" data-area="{area}" data-live="{1 if live else 0}" '
            f'data-label="{label}"></span>{_SCRIPT % _VALUES}',
            unsafe_allow_javascript=True,
        )
