/**
 * 真实机器会给会话文件的输入（issue 22 的第 1–5 条）：奇怪的编号、写满的磁盘与只读的目录、
 * 不是普通文件的路径、长得装不进字符串的行、被扩展改掉的 JSON。
 * 规矩照旧：一句中文说清是哪个文件、为什么；对话照常进行；已经保存的字节一个不丢。
 */

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { loadSession, Session } from "../src/session.js";
import type { Message } from "../src/types.js";
import { SESSION_LIMITS } from "../src/guards/session-lines.js";
import { makeSandbox, removeSandbox, runCli, type CliResult } from "./helpers/cli.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-hostile-"));
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

const user = (content: string): Message => ({ role: "user", content });
const entry = (id: string, parentId: string | null, message: Message): string => JSON.stringify({ type: "message", id, parentId, message });
const idsOf = (file: string): Array<{ id: string; parentId: string | null }> =>
  fs.readFileSync(file, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line));

/** 打开一个会话，把它要报告的话收进 reported（而不是打印到标准错误）。 */
function collecting(session: Session): string[] {
  const reported: string[] = [];
  session.warn = (line) => reported.push(line);
  return reported;
}

/**
 * 带着故障注入（helpers/fs-faults.mjs）运行 CLI：worker 里先导入它、再导入 main.ts，换掉的只是那个 worker 的 fs。
 * 环境变量 FS_FAULT 在 worker 启动时随 process.env 复制过去。
 */
async function runCliWithFault(fault: string, cwd: string, args: string[], input: string): Promise<CliResult> {
  const faults = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), "helpers", "fs-faults.mjs")).href;
  const saved = process.env.FS_FAULT;
  process.env.FS_FAULT = fault;
  try {
    return await runCli(cwd, args, input, undefined, faults);
  } finally {
    if (saved === undefined) delete process.env.FS_FAULT;
    else process.env.FS_FAULT = saved;
  }
}

describe("第 1 条：编号不是小整数", () => {
  it.each([
    ["e1e400（Number 之后是 Infinity）", "e1e400"],
    ["超过 2⁵³ 的编号（Number 之后 +1 不变）", "e9007199254740993"],
    ["不是 e 开头的编号", "abc"],
  ])("%s：新编号不与文件里任何一个相同，也不是自己的父条目，文件照常能打开", (_label, odd) => {
    const file = path.join(dir, "ids.jsonl");
    fs.writeFileSync(file, [entry("e1", null, user("一")), entry("e9007199254740992", "e1", user("二")), entry(odd, "e9007199254740992", user("三"))].join("\n") + "\n");
    const session = Session.open(file);
    session.append(user("四"));
    session.append(user("五"));
    const entries = idsOf(file);
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
    for (const e of entries) expect(e.parentId).not.toBe(e.id);
    expect(entries.at(-2)?.parentId).toBe(odd);
    expect(Session.open(file).messages().map((m) => m.content)).toEqual(["一", "二", "三", "四", "五"]);
  });
});

describe("第 2 条：磁盘写满、目录只读", () => {
  /** 让第 n 次以后的追加只写进半行就失败，像磁盘写满那样。 */
  function diskFullAfter(n: number): void {
    const original = fs.appendFileSync;
    let writes = 0;
    vi.spyOn(fs, "appendFileSync").mockImplementation((file, data) => {
      if (++writes <= n) return original(file, data);
      original(file, String(data).slice(0, 20));
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    });
  }

  it("写满：一句话说清没保存、为什么、从哪条起；写进去的半行截掉；之后不再写；下次照常打开", () => {
    const file = path.join(dir, "full.jsonl");
    const session = Session.create(file);
    const reported = collecting(session);
    diskFullAfter(1);
    session.append(user("一"));
    session.append(user("二"));
    session.append(user("三"));
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatch(/^\[会话未保存\] full\.jsonl：磁盘已满（ENOSPC）/);
    expect(reported[0]).toContain("「二」");
    expect(fs.readFileSync(file, "utf8")).toBe(entry("e1", null, user("一")) + "\n");
    vi.restoreAllMocks();
    expect(Session.open(file).messages()).toEqual([user("一")]);
  });

  it("半行截不掉（文件系统随即变成只读）：下次打开时照常当作不完整的最后一行截掉", () => {
    const file = path.join(dir, "torn.jsonl");
    const session = Session.create(file);
    collecting(session);
    diskFullAfter(1);
    vi.spyOn(fs, "truncateSync").mockImplementation(() => {
      throw Object.assign(new Error("EROFS: x"), { code: "EROFS" });
    });
    session.append(user("一"));
    session.append(user("二"));
    vi.restoreAllMocks();
    const warnings: string[] = [];
    expect(Session.open(file, warnings).messages()).toEqual([user("一")]);
    expect(warnings[0]).toContain("第 2 行不完整");
  });

  it("新会话的第一条就写不进去：不留下半行（否则下次 --continue 会当它不是会话文件）", () => {
    const file = path.join(dir, "first.jsonl");
    const session = Session.create(file);
    const reported = collecting(session);
    diskFullAfter(0);
    session.append(user("一"));
    vi.restoreAllMocks();
    expect(reported).toHaveLength(1);
    expect(fs.readFileSync(file, "utf8")).toBe("");
    expect(Session.open(file).messages()).toEqual([]);
  });

  it("真的写一次 /dev/full：内核给的 ENOSPC 同样说成一句话", () => {
    if (!fs.existsSync("/dev/full")) {
      console.warn("[跳过] 这个系统没有 /dev/full，真实的 ENOSPC 只在上一个测试里模拟");
      return;
    }
    const session = Session.create(path.join(dir, "devfull.jsonl"));
    const reported = collecting(session);
    const original = fs.appendFileSync;
    vi.spyOn(fs, "appendFileSync").mockImplementation((_file, data) => original("/dev/full", data));
    session.append(user("一"));
    expect(reported).toEqual([expect.stringContaining("磁盘已满（ENOSPC）")]);
  });

  it("启动时就发现 .sessions 写不了：路径上是一个文件，不是文件夹", () => {
    const sessions = path.join(dir, ".sessions");
    fs.writeFileSync(sessions, "");
    expect(() => Session.create(path.join(sessions, "new.jsonl"))).toThrow(/^会话无法保存在 \.sessions\/：.*不是文件夹/);
  });

  it.each([
    ["EROFS", "只读的文件系统"],
    ["EACCES", "没有写入权限"],
  ])("启动时就发现 .sessions 写不了（%s）：新建与打开都拒绝，文件不动", (code, reason) => {
    const sessions = path.join(dir, ".sessions");
    fs.mkdirSync(sessions);
    const file = path.join(sessions, "old.jsonl");
    fs.writeFileSync(file, entry("e1", null, user("一")) + "\n");
    vi.spyOn(fs, "accessSync").mockImplementation(() => {
      throw Object.assign(new Error(`${code}: x`), { code });
    });
    expect(() => Session.create(path.join(sessions, "new.jsonl"))).toThrow(`会话无法保存在 .sessions/：${reason}`);
    expect(() => Session.open(file)).toThrow(reason);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it("命令行：写到一半磁盘满了——说一句，对话照常进行，管道里后面的输入不丢，下次照常打开", async () => {
    const sandbox = makeSandbox();
    try {
      const result = await runCliWithFault("enospc:1", sandbox, [], "我叫小明\n帮我算 17*38\n");
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr.match(/\[会话未保存\]/g)).toHaveLength(1);
      expect(result.stderr).toContain("磁盘已满（ENOSPC）");
      expect(result.stderr).not.toContain("    at ");
      expect(result.stdout).toContain("你好，小明！");
      expect(result.stdout).toContain("结果是 646。");
      expect(result.stdout.trimEnd().endsWith("再见。")).toBe(true);
      const again = await runCli(sandbox, ["--continue"], "我叫什么\n");
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain("：1 条消息");
    } finally {
      removeSandbox(sandbox);
    }
  });

  it.each([
    ["路径上是一个文件", "file", [], "不是文件夹"],
    ["路径上是一个文件，--continue", "file", ["--continue"], "不是文件夹"],
    ["只读的文件系统", "erofs", [], "只读的文件系统（EROFS）"],
  ])("命令行：.sessions 写不了（%s）——学习者开口之前就拒绝，退出码 1", async (_label, how, args, reason) => {
    const sandbox = makeSandbox();
    try {
      if (how === "file") fs.writeFileSync(path.join(sandbox, ".sessions"), "");
      const result = how === "file" ? await runCli(sandbox, args, "你好\n") : await runCliWithFault("erofs", sandbox, args, "你好\n");
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("无法打开会话：会话无法保存在 .sessions/：");
      expect(result.stderr).toContain(reason);
      expect(result.stdout).not.toContain("你> ");
    } finally {
      removeSandbox(sandbox);
    }
  });
});

describe("第 3 条：不是普通文件", () => {
  const unix = process.platform !== "win32";
  if (!unix) console.warn("[跳过] FIFO、/dev/zero 与 Unix 套接字只在 Linux/macOS 上有");

  it.runIf(unix).each([
    ["FIFO", "命名管道（FIFO）"],
    ["/dev/zero 的符号链接", "字符设备"],
    ["套接字", "套接字"],
  ])("--session 指向%s：读之前就拒绝，一句话，退出码 1", async (kind, shown) => {
    const sandbox = makeSandbox();
    const file = path.join(sandbox, "odd.jsonl");
    let server: net.Server | undefined;
    try {
      if (kind === "FIFO") expect(spawnSync("mkfifo", [file]).status).toBe(0);
      else if (kind === "套接字") {
        server = net.createServer();
        await new Promise<void>((resolve) => server!.listen(file, resolve));
      } else fs.symlinkSync("/dev/zero", file);
      const result = await runCli(sandbox, ["--session", "odd.jsonl"], "你好\n");
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(`无法打开会话：odd.jsonl 不是普通文件（是${shown}），没有读取它`);
      expect(() => loadSession(file)).toThrow(`odd.jsonl 不是普通文件（是${shown}）`);
    } finally {
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
      removeSandbox(sandbox);
    }
  });

  it("文件夹：同样拒绝", () => {
    expect(() => Session.open(dir)).toThrow("不是普通文件（是文件夹）");
  });
});

describe("第 4 条：长得装不进字符串的行", () => {
  it("一行超过上限：说出文件、行号与上限；只读到上限附近就停下，文件不动", () => {
    const file = path.join(dir, "huge.jsonl");
    const head = entry("e1", null, user("一")) + "\n";
    fs.writeFileSync(file, head + entry("e2", "e1", user("长".repeat(4_000_000))) + "\n");
    const sizeBefore = fs.statSync(file).size;
    const original = fs.readSync;
    let bytesRead = 0;
    vi.spyOn(fs, "readSync").mockImplementation((...args: Parameters<typeof fs.readSync>) => {
      const n = original(...args);
      bytesRead += n;
      return n;
    });
    expect(() => Session.open(file, [], { ...SESSION_LIMITS, lineBytes: 1000 })).toThrow("会话文件 huge.jsonl 第 2 行超过每行 1000 字节的上限");
    expect(bytesRead).toBeLessThan(1024 * 1024); // 12 MB 的那一行没有整个读进来
    expect(fs.statSync(file).size).toBe(sizeBefore);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it("上限以内的行照常读出；一行正好跨过读取块的边界也一样", () => {
    const file = path.join(dir, "long.jsonl");
    const long = "长".repeat(40_000); // 12 万字节：跨过 64 KiB 的读取块
    fs.writeFileSync(file, entry("e1", null, user(long)) + "\n" + entry("e2", "e1", user("二")) + "\n");
    expect(loadSession(file, [], { ...SESSION_LIMITS, lineBytes: 200_000 }).messages.map((m) => m.content)).toEqual([long, "二"]);
  });

  it("写入时也守同一个上限：超长的消息截短了再存（原样存下次就打不开），说一句", () => {
    const file = path.join(dir, "write.jsonl");
    const session = Session.create(file, { ...SESSION_LIMITS, lineBytes: 1000 });
    const reported = collecting(session);
    session.append(user("一"));
    session.append(user("长".repeat(1000)));
    expect(reported).toEqual([expect.stringContaining("超过每行 1000 字节的上限")]);
    const [first, cut] = Session.open(file, [], { ...SESSION_LIMITS, lineBytes: 1000 }).messages();
    expect(first).toEqual(user("一"));
    expect(cut?.content).toMatch(/^长+…［会话文件只保存了前 \d+ 个字符，原文 1000 个字符］$/);
  });
});

describe("第 5 条：被改掉的 JSON", () => {
  it.each([
    ["Object.prototype.toJSON", Object.prototype],
    ["Array.prototype.toJSON", Array.prototype],
  ])("%s 被改掉：写之前核对，对不上就拒绝写并说一句，文件里没有垃圾", (_label, proto) => {
    const file = path.join(dir, "json.jsonl");
    const session = Session.create(file);
    const reported = collecting(session);
    session.append(user("一"));
    Object.defineProperty(proto, "toJSON", { value: () => ({}), configurable: true, writable: true });
    try {
      session.append({ role: "assistant", content: [{ type: "text", text: "二" }], stopReason: "stop" });
    } finally {
      delete (proto as { toJSON?: unknown }).toJSON;
    }
    expect(reported).toHaveLength(1);
    expect(reported[0]).toContain("toJSON");
    expect(fs.readFileSync(file, "utf8")).toBe(entry("e1", null, user("一")) + "\n");
  });

  it.each([
    ["toJSON 直接抛错", () => Object.defineProperty(Object.prototype, "toJSON", { get: () => { throw new Error("扩展的错"); }, configurable: true })],
    ["数组写成同样长的一串 null，every 又被改成永远为真", () => {
      Object.defineProperty(Array.prototype, "toJSON", { value: function (this: unknown[]) { return Array.from({ length: this.length }, () => null); }, configurable: true, writable: true });
      Object.defineProperty(Array.prototype, "every", { value: () => true, configurable: true, writable: true });
    }],
  ])("%s：同样拒绝写入，说的是 JSON 对不上", (_label, tamper) => {
    const file = path.join(dir, "tamper.jsonl");
    const session = Session.create(file);
    const reported = collecting(session);
    const every = Array.prototype.every;
    tamper();
    try {
      session.append({ role: "assistant", content: [{ type: "text", text: "一" }], stopReason: "stop" });
    } finally {
      delete (Object.prototype as { toJSON?: unknown }).toJSON;
      delete (Array.prototype as { toJSON?: unknown }).toJSON;
      Object.defineProperty(Array.prototype, "every", { value: every, configurable: true, writable: true, enumerable: false });
    }
    expect(reported).toEqual([expect.stringContaining("写出的一行与消息对不上")]);
    expect(fs.existsSync(file)).toBe(false);
  });

  it("JSON 会丢掉的值（undefined 字段）不算对不上", () => {
    const file = path.join(dir, "undef.jsonl");
    const session = Session.create(file);
    const reported = collecting(session);
    session.append({ role: "assistant", content: [{ type: "text", text: "一" }], stopReason: "stop", errorMessage: undefined } as Message);
    expect(reported).toEqual([]);
    expect(Session.open(file).messages()).toHaveLength(1);
  });
});
