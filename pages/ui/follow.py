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
once the finished run is redrawn (they come with that redraw, below where the live drawing ended),
until the redraw is over and they stand in view; a person's scroll up cancels that, as it stops
following. The step-mode pause bar, stuck to the
bottom of the screen, is never taken for a step and counts as covering what is under it.

While a run is live the script also keeps the run area's column from shrinking (a streamed reply
replaced by its caption, a graph redrawn), and holds that height after the run until the next one
starts: the page never jumps, and a person reading the bottom of the page stays there.
"""

from __future__ import annotations

import html

import streamlit as st

from .i18n import t

#: Streamlit's HTML sanitiser drops a script whose text holds "<" before a letter, "/" or "!" (it
#: could be markup): the script below never does, not even in a comment (tests/test_follow_script.py)

#: the mark's class, read by the script and the browser tests
MARK = "apg-follow"
#: the longest the script keeps bringing a followed run's end into view after the run ends (it stops
#: sooner: once the redraw is over and the end has stood in view for SETTLED_FRAMES frames)
SETTLE_MS = 60_000
SETTLED_FRAMES = 30

_SCRIPT = r"""
<script>
(() => {
  if (window.__apgFollow) return;
  const S = window.__apgFollow = {follow: true, wasLive: false, last: 0, quiet: 0, button: null, areas: [], settle: 0,
    stable: 0, pointer: false};
  const main = () => document.querySelector('[data-testid=stMain]');
  const fresh = (el) => { const box = el.closest('[data-stale]'); return !box || box.dataset.stale !== 'true'; };
  const liveMarks = () => [...document.querySelectorAll('.%(mark)s[data-live="1"]')].filter(fresh);
  const areaOf = (key) => document.querySelector('.st-key-' + CSS.escape(key));
  const liveAreas = (marks) => marks.map((mark) => areaOf(mark.dataset.area)).filter(Boolean);
  // The pause bar (step mode): keyed as its page's prefix and `_pause`, drawn last in its run area (so only the area's
  // own children are looked at, every frame) and stuck to the bottom of the screen. It is no step, and
  // it covers what is under it.
  const barOf = (area) => [...area.querySelectorAll(':scope > [data-testid=stLayoutWrapper] > [class*="_pause"]')]
    .find((b) => b.offsetParent && fresh(b) && [...b.classList].some((c) => c.startsWith('st-key-') && c.endsWith('_pause')));
  const newest = (area) => {
    // the lowest visible step block, or the area itself when no block is drawn yet
    const bar = barOf(area);
    let best = null, low = -Infinity;
    for (const el of area.querySelectorAll('[data-testid=stExpander], [class*="-final"], [class*="-end-"]')) {
      if (!el.offsetParent || (bar && bar.contains(el))) continue;
      const r = el.getBoundingClientRect();
      if (r.height > 0 && r.bottom > low) { low = r.bottom; best = el; }
    }
    return best || area;
  };
  const lowest = (areas) => {
    let target = null, low = -Infinity;
    for (const area of areas) {
      const el = newest(area), bottom = el.getBoundingClientRect().bottom;
      if (bottom > low) { low = bottom; target = el; }
    }
    return target;
  };
  // the bottom of what a person sees of the page: the window's, or a pause bar's top
  const seenBottom = (m, areas) => {
    let bottom = m.getBoundingClientRect().top + m.clientHeight;
    for (const area of areas) {
      const bar = barOf(area);
      if (bar) bottom = Math.min(bottom, bar.getBoundingClientRect().top);
    }
    return bottom;
  };
  // ... and its top: below the header and a run view's stuck head (presenter mode)
  const seenTop = (m, areas) => {
    let top = m.getBoundingClientRect().top;
    const header = document.querySelector('[data-testid=stHeader]');
    if (header) top = Math.max(top, header.getBoundingClientRect().bottom);
    for (const area of areas) {
      for (const head of area.querySelectorAll('[class*="_view-headline"]')) {
        const wrap = head.parentElement, h = wrap.getBoundingClientRect();
        if (getComputedStyle(wrap).position === 'sticky' && h.top <= top + 8 && h.bottom > top) top = h.bottom;
      }
    }
    return top;
  };
  const stop = () => {
    S.settle = 0;
    if (S.wasLive && S.follow) { S.follow = false; show(); }
  };
  const resume = () => { S.follow = true; hide(); tick(true); };
  const show = () => {
    const marks = liveMarks(), m = main();
    if (!marks.length || !m) return;
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
    S.button.textContent = '↓ ' + (marks[0].dataset.label || '');
    // no way to the latest step while the latest step is in view (a pause at the bottom of the page)
    const areas = liveAreas(marks), target = lowest(areas);
    const there = target && target.getBoundingClientRect().bottom <= seenBottom(m, areas) + 2;
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
  document.addEventListener('pointerdown', () => { S.pointer = true; }, true);
  document.addEventListener('pointerup', () => { S.pointer = false; }, true);
  document.addEventListener('scroll', (e) => {
    const m = main();
    if (!m || e.target !== m) return;
    // This script scrolls up only to show a run's end (and sets S.last first), and a live run's
    // column never shrinks (see tick): any other move up is the person's (the scrollbar, find in page,
    // a control scrolled into view), unless the page got shorter under a page scrolled to its bottom
    // (the browser moves it up to the new bottom). Once the live drawing is over (its marks stale,
    // which the next frame's tick may not have seen yet), the redraw changes the page and the
    // browser's scroll anchoring moves it a few px: only the scrollbar dragged up (a pointer down) is
    // the person's then, and it ends bringing the run's end into view.
    const clamped = m.scrollHeight - m.scrollTop - m.clientHeight < 2;
    if (m.scrollTop < S.last - 2 && performance.now() > S.quiet && !clamped) {
      if (liveMarks().length) stop();
      else if (S.pointer) S.settle = 0;
    }
    S.last = m.scrollTop;
    if (!S.follow && S.wasLive && m.scrollHeight - m.scrollTop - m.clientHeight < 8) resume();
  }, true);
  // The end of a followed run: its answer and its end badge (drawn by the finished run's redraw)
  // come into view with the least move that shows both, the answer's top never under the head; when
  // both do not fit, only down, to the answer's top. A person's scroll up ends it. Done (true) once
  // the redraw is over and the end has stood in view for SETTLED_FRAMES frames.
  const settleEnd = (m) => {
    let found = false, moved = false;
    const areas = S.areas.map(areaOf).filter(Boolean);
    for (const area of areas) {
      const ends = [...area.querySelectorAll('[class*="-final"], [class*="-end-"]')]
        .filter((el) => el.offsetParent && fresh(el) && el.getBoundingClientRect().height > 0);
      if (!ends.length) continue;
      const top = seenTop(m, areas), bottom = seenBottom(m, areas);
      const first = Math.min(...ends.map((el) => el.getBoundingClientRect().top));
      const last = Math.max(...ends.map((el) => el.getBoundingClientRect().bottom));
      // move by d with last - d <= bottom - 4 (the end shows) and first - d >= top + 4 (so does the
      // answer's top)
      const least = last - bottom + 4, most = first - top - 4;
      const d = least > most ? Math.max(0, most) : Math.min(Math.max(0, least), most);
      found = true;
      if (Math.abs(d) > 1) {
        S.last = m.scrollTop + d;  // this script's own move (up, when the end fits): not the person's
        m.scrollTop = m.scrollTop + d;
        moved = true;
      }
    }
    const app = document.querySelector('[data-testid=stApp]');
    const over = !app || app.dataset.testScriptState !== 'running';
    S.stable = found && over && !moved ? S.stable + 1 : 0;
    return S.stable >= %(settled)d;
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
      if (S.follow) { S.settle = performance.now() + %(settle_ms)d; S.stable = 0; }
    }
    S.wasLive = live;
    if (live) S.areas = marks.map((mark) => mark.dataset.area);
    if (live && !S.follow) show();
    for (const mark of marks) {
      const area = areaOf(mark.dataset.area);
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
      const areas = liveAreas(marks);
      // at a pause, the bar is its run area's last element: the page follows to it, so the bar rests in
      // its place below the newest step instead of covering what came last
      const paused = areas.find((area) => barOf(area));
      const target = paused || lowest(areas);
      if (target) {
        const gap = target.getBoundingClientRect().bottom - (m.getBoundingClientRect().top + m.clientHeight) + 24;
        if (gap > 1) {  // only ever down: the newest step comes into view from below
          m.scrollTop = m.scrollTop + gap;
        }
      }
    }
    if (!live && S.settle && m && (performance.now() > S.settle || settleEnd(m))) S.settle = 0;
    if (now !== true) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();
</script>
"""


_VALUES = {"mark": MARK, "settle_ms": SETTLE_MS, "settled": SETTLED_FRAMES}


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
