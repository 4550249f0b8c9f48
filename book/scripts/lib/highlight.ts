// 代码页、差异页、Pi 源码页的语法高亮：Shiki（VitePress 自己用的同一个），结果按内容哈希缓存。
// 高亮在工作线程里做（highlight-worker.ts，线程数 = CPU 核数，最多 4 个）：主线程同时能跑 VitePress。
// 同一份内容（各步骤之间没变的文件）只高亮一次。
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { Job, Reply } from "./highlight-worker.ts";
import { CACHE_DIR } from "./paths.ts";

// 缓存键里带上这个版本号：改了输出格式（highlight-worker.ts）就换一个，旧缓存自动作废
const FORMAT = "v1";

export function langOf(file: string): string {
  const ext = path.extname(file).toLowerCase();
  const map: Record<string, string> = {
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".json": "json",
    ".md": "markdown",
    ".yml": "yaml",
    ".yaml": "yaml",
    ".sh": "shellscript",
    ".diff": "diff",
  };
  return map[ext] ?? "text";
}

interface Pending extends Job {
  resolve(html: string): void;
  reject(error: Error): void;
}

/** 一组工作线程；待办里总是先发最大的那个，免得最后剩一个大文件让别的线程干等 */
class Pool {
  private readonly workers: Array<{ worker: Worker; busy: Map<number, Pending> }> = [];
  private readonly queue: Pending[] = [];
  private nextId = 0;

  constructor(size: number) {
    // 工作线程不继承 tsx 的加载器（Node 20）：用 tsx 的 tsImport 载入 .ts 的工作线程文件
    const api = import.meta.resolve("tsx/esm/api");
    const file = new URL("./highlight-worker.ts", import.meta.url).href;
    const boot = `import(${JSON.stringify(api)}).then((m) => m.tsImport(${JSON.stringify(file)}, ${JSON.stringify(import.meta.url)}))`;
    for (let i = 0; i < size; i++) {
      const worker = new Worker(boot, { eval: true });
      const slot = { worker, busy: new Map<number, Pending>() };
      worker.on("message", (reply: Reply) => {
        const job = slot.busy.get(reply.id);
        slot.busy.delete(reply.id);
        if ("html" in reply) job?.resolve(reply.html);
        else job?.reject(new Error(`高亮失败：${reply.error}`));
        this.pump();
        // 没活干的线程不拦着进程退出；有活时 pump() 里再 ref()
        if (slot.busy.size === 0) worker.unref();
      });
      worker.on("error", (error) => {
        for (const job of [...slot.busy.values(), ...this.queue.splice(0)]) job.reject(error);
      });
      worker.unref();
      this.workers.push(slot);
    }
  }

  run(code: string, lang: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, code, lang, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    for (const slot of this.workers) {
      // 每个线程手里留两件：主线程忙着（VitePress）时它也不会空等
      while (slot.busy.size < 2 && this.queue.length > 0) {
        let biggest = 0;
        for (let i = 1; i < this.queue.length; i++) if ((this.queue[i]?.code.length ?? 0) > (this.queue[biggest]?.code.length ?? 0)) biggest = i;
        const job = this.queue.splice(biggest, 1)[0] as Pending;
        slot.busy.set(job.id, job);
        slot.worker.ref();
        slot.worker.postMessage({ id: job.id, code: job.code, lang: job.lang } satisfies Job);
      }
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }
}

let pool: Pool | undefined;
const inFlight = new Map<string, Promise<string>>();
let hits = 0;
let misses = 0;

/** 不同的内容里：取自缓存的几份、新高亮的几份 */
export function cacheStats(): { hits: number; misses: number } {
  return { hits, misses };
}

/** 先把工作线程开起来（载入 Shiki 要一会儿），与构建的其他部分同时进行 */
export function startHighlighter(): void {
  pool ??= new Pool(Math.max(1, Math.min(4, os.availableParallelism())));
}

export async function stopHighlighter(): Promise<void> {
  await pool?.close();
  pool = undefined;
  inFlight.clear();
}

/** 把一个文件高亮成 <pre class="shiki">…</pre>；每一行是 <span class="line" id="L行号" data-line="行号"> */
export function highlight(code: string, lang: string): Promise<string> {
  const key = crypto.createHash("sha256").update(`${FORMAT}\0${lang}\0${code}`).digest("hex");
  const known = inFlight.get(key);
  if (known !== undefined) return known;
  const file = path.join(CACHE_DIR, "shiki", `${key}.html`);
  let result: Promise<string>;
  if (fs.existsSync(file)) {
    hits++;
    result = fs.promises.readFile(file, "utf8");
  } else {
    misses++;
    startHighlighter();
    result = (pool as Pool).run(code, lang).then((html) => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, html);
      return html;
    });
  }
  inFlight.set(key, result);
  return result;
}

/** 提前排进队列（结果以后再取）；出错留到真正取结果时再报 */
export function prefetch(code: string, lang: string): void {
  highlight(code, lang).catch(() => {});
}
