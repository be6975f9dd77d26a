/** The page's stylesheet (inline in the HTML: one request fewer, nothing from elsewhere). */
export const PAGE_CSS = `
:root { --bg: #fafaf8; --fg: #1d1d1f; --dim: #6b6b70; --line: #deded8; --card: #ffffff; --accent: #2f5fd0; --ok: #1f7a3a; --err: #b3261e; --warn: #8a5a00; --add: #e6f4ea; --del: #fce8e6; }
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; }
body { display: flex; flex-direction: column; background: var(--bg); color: var(--fg); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
#bar { display: flex; align-items: center; gap: 12px; padding: 8px 16px; border-bottom: 1px solid var(--line); background: var(--card); }
#bar .spacer { flex: 1; }
#bar #session { min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
#bar #counters { white-space: nowrap; }
#sessions { font: inherit; max-width: 18em; padding: 3px 6px; border-radius: 6px; border: 1px solid var(--line); background: var(--card); }
.dim { color: var(--dim); font-size: 13px; }
.status { font-size: 12px; padding: 2px 8px; border-radius: 10px; background: #eee; }
.status.running { background: #e3ecff; color: var(--accent); }
button { font: inherit; padding: 4px 14px; border-radius: 6px; border: 1px solid var(--line); background: var(--card); cursor: pointer; }
button:disabled { opacity: .45; cursor: default; }
#stop:not(:disabled) { border-color: var(--err); color: var(--err); }
#conversation { flex: 1; overflow-y: auto; padding: 16px; max-width: 980px; width: 100%; margin: 0 auto; }
.turn { margin-bottom: 20px; }
.turn-end { font-size: 12px; color: var(--dim); border-top: 1px dashed var(--line); padding-top: 4px; margin-top: 8px; }
.turn-end.failed { color: var(--err); }
.msg { margin: 8px 0; }
.msg.user { background: #eef2fb; border-radius: 10px; padding: 8px 12px; white-space: pre-wrap; }
.msg.assistant .text > :first-child { margin-top: 0; }
.msg.assistant .text > :last-child { margin-bottom: 0; }
.text pre { background: #f2f2ee; padding: 8px; border-radius: 6px; overflow-x: auto; }
.text code { font: 13px ui-monospace, SFMono-Regular, Menlo, monospace; }
.streaming::after { content: "▍"; color: var(--accent); }
details.thinking { color: var(--dim); font-size: 14px; margin: 4px 0; }
details.thinking > div { white-space: pre-wrap; border-left: 3px solid var(--line); padding-left: 8px; }
.tool { border: 1px solid var(--line); border-radius: 8px; background: var(--card); margin: 8px 0; padding: 6px 10px; }
.tool-head { display: flex; gap: 8px; align-items: baseline; }
.tool-name { font-weight: 600; }
.tool-input { font: 13px ui-monospace, monospace; color: var(--dim); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; flex: 1; }
.tool-state { font-size: 12px; }
.tool[data-status="running"] .tool-state, .tool[data-status="pending"] .tool-state { color: var(--accent); }
.tool[data-status="done"] .tool-state { color: var(--ok); }
.tool[data-status="error"] .tool-state, .tool[data-status="cancelled"] .tool-state { color: var(--err); }
.tool pre { margin: 6px 0 0; max-height: 240px; overflow: auto; font: 12px/1.4 ui-monospace, monospace; background: #f6f6f3; padding: 6px; border-radius: 4px; white-space: pre-wrap; }
.diff { margin-top: 6px; font: 12px/1.4 ui-monospace, monospace; }
.diff div { white-space: pre-wrap; padding: 0 6px; }
.diff .add { background: var(--add); }
.diff .del { background: var(--del); }
.subagent { margin: 6px 0 0 12px; padding-left: 10px; border-left: 3px solid #c9d6f5; }
.notice { font-size: 13px; color: var(--warn); }
.boundary { font-size: 12px; color: var(--dim); text-align: center; border-top: 1px solid var(--line); margin: 12px 0; }
#permissions { max-width: 980px; width: 100%; margin: 0 auto; padding: 0 16px; }
.permission { border: 1px solid #e0b252; background: #fff8e6; border-radius: 8px; padding: 8px 12px; margin: 8px 0; display: flex; gap: 10px; align-items: center; }
.permission .what { flex: 1; }
.permission code { font: 13px ui-monospace, monospace; }
#questions { max-width: 980px; width: 100%; margin: 0 auto; padding: 0 16px; }
.question { border: 1px solid #8fb0e8; background: #f0f5ff; border-radius: 8px; padding: 8px 12px; margin: 8px 0; }
.question label { display: block; margin: 6px 0; }
.question .field-title { font-weight: 600; margin-right: 6px; }
.question .reason { color: var(--warn); font-size: 13px; }
.question label.inline { display: inline; margin-right: 10px; }
.question .buttons { display: flex; gap: 8px; margin-top: 8px; }
#composer { max-width: 980px; width: 100%; margin: 0 auto; padding: 8px 16px 16px; }
#prompt { width: 100%; font: inherit; padding: 8px 10px; border-radius: 8px; border: 1px solid var(--line); resize: vertical; }
`;
