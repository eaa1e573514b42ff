"""The view layer shared by the pages. Only this package (and the page scripts) import streamlit.

- sidebar.py  — the model sidebar; `model_router()`, `current_lang()`, `secrets_to_redact()`
- controls.py — pattern / scenario / prompt / limit widgets under a key prefix
- setup_state.py — the setup keys in session_state under a prefix; `read_setup()` -> a checked RunConfig
- catalogue.py — variants, switches and limit labels as the Playground offers them
- render.py   — `RunView`, the one renderer of events (live and redraw); `draw_run()`
- blocks.py   — which box (round, step, draft, critique...) each event goes in, and its label
- graphs.py   — each pattern's graph as DOT, with the active node highlighted
- live.py     — Run / Stop buttons and `drive()`, which follows a run's RunHandle thread to the renderer
- runs.py     — the runs kept in session_state (`RunRecord`), safe against overlapping reruns
- summary.py  — after a run: downloads (trace, report) and costs (by role, timeline, per step)
- text.py     — model text made safe for markdown
- slots.py    — `slot()`: a place a view fills later, the same element tree live and on a redraw
- diff_view.py — word diffs (struck through / underlined, wrapped, code in monospace) and line diffs
- shell.py    — keeps every page inside app.py's shell (page config, navigation, sidebar)
- lanes_view.py — Compare's lane widgets: task, presets, lane cards, Run/Stop, lane columns
- lane_state.py — Compare's state scheme, `Comparison`, and `drive()` running the lanes concurrently
- lane_presets.py — Compare's one-click comparisons
- lane_results.py — after the lanes: a table, cost charts, an answer diff, the export
- player.py   — Replay: opening traces (and Compare exports), the slider and the play loop
- call_views.py — the Prompt and Reply views of one model call, from the call record
- fork_view.py — Fork from here, the fork editor, and Compare's original-vs-fork pair
- step_view.py — step mode: the switch and breakpoints, the pause banner and its actions
- poll.py     — the room's prediction poll (per server, in memory; one per session, closed with its run)
- uploads.py  — bounds on uploads held in memory: per file, per session, per server
- eval_stats.py — Eval's statistics: intervals, error bars, the paired comparison in words, ETA, downloads
- honesty.py  — what the scripted offline model does not do, said where it matters
- tools_view.py — the Tools (MCP) section: servers to connect, their tools, health and switches
"""
