/**
 * 哑终端（TERM=dumb）认不得 ESC 序列，会把它们原样印成乱码（issue 31 第 14 条）：
 * 标准输出是这样的终端时，推理不调暗，一个控制序列也不写；NO_COLOR 没设也一样。
 * 「是不是终端」默认看 process.stdout：测试里临时换掉它的 write 与 isTTY，测完换回。
 */
import { afterEach, describe, expect, it } from "vitest";

import { renderEvents } from "../src/render.js";
import type { HarnessEvent } from "../src/types.js";

async function* from(events: HarnessEvent[]): AsyncGenerator<HarnessEvent> {
  yield* events;
}

const saved = { write: process.stdout.write, isTTY: process.stdout.isTTY, env: { TERM: process.env.TERM, NO_COLOR: process.env.NO_COLOR } };
afterEach(() => {
  process.stdout.write = saved.write;
  process.stdout.isTTY = saved.isTTY;
  for (const [name, value] of Object.entries(saved.env)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

async function renderToTerminal(term: string): Promise<string> {
  let out = "";
  process.env.TERM = term;
  delete process.env.NO_COLOR;
  process.stdout.isTTY = true;
  process.stdout.write = ((text: string) => ((out += text), true)) as typeof process.stdout.write;
  try {
    await renderEvents(from([
      { type: "thinking_delta", delta: "想" },
      { type: "text_delta", delta: "答" },
    ]));
  } finally {
    process.stdout.write = saved.write;
  }
  return out;
}

describe("TERM=dumb 的终端", () => {
  it("推理不调暗，没有任何转义序列；普通终端上照样调暗", async () => {
    expect(await renderToTerminal("dumb")).toBe("思考> 想\n助手> 答\n");
    expect(await renderToTerminal("xterm-256color")).toBe("\x1b[2m思考> 想\x1b[0m\n助手> 答\n");
  });
});
