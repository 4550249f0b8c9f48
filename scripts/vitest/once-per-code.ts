/**
 * 根目录 `npm test` 里「同一份代码只跑一次」（DESIGN §9）：
 * 步骤是完整的副本，step07 的 session-tail.test.ts 与 step06 的那份一字不差，被测的 src/session-tail.ts 也一字不差，
 * 在同一次运行里跑两遍证明不了更多东西。各步骤自己的 `npm test` 不用这里，仍然全跑。
 *
 * 两个测试文件算「同一份代码」，要同时满足：
 *   1. 闭包相同：测试文件连同它（静态或字面量的动态 import）导入的全部文件，相对测试文件所在目录的路径与每个字节都相同。
 *      闭包由 esbuild 的解析器算（tsx 自带的那份，按 metafile 里的导入图），不是手写的正则；
 *      解析到 node_modules 里的包不展开，记下解析到的真实路径（两份副本用的是同一份安装才算相同）。
 *      每个文件最近的 package.json 的 "type" 与 tsconfig.json 的 compilerOptions 也算进去：同样的字节可能被编译得不一样。
 *   2. 闭包里没有哪个文件知道自己在哪儿。运行时读的文件（test/helpers/cli.ts 把 src/、extensions/ 复制进沙箱再跑，
 *      golden.test.ts 读 expected-output.txt，有的测试读 README.md）都是从文件自己的位置找过去的：
 *      `import.meta`（url、dirname、resolve、glob）、参数不是字面量的 `import()`、CommonJS 的 __dirname/require、
 *      vitest 告诉测试它的路径的 API（testPath、filepath）、按测试文件找的快照与 importActual。
 *      这样的测试的输入是它所在的整个步骤目录——连同目录的名字：process-exit.test.ts 就按 path.basename(stepRoot) 分情况。
 *      两个步骤的目录名总不相同，所以这样的测试一律各跑各的，不比内容。
 * 判断用的是 esbuild 转换后的 JavaScript：import.meta 与动态 import 由 es-module-lexer 认出，其余几个名字按词查（注释已被 esbuild 去掉）；
 * 宁可多跑：认不出、解析失败、esbuild 报错，都当作不同。
 *
 * 用时：一次 esbuild（只为拿导入图，不写文件）加上读一遍闭包里的文件；第 2 条的判断按内容的哈希缓存在系统临时目录里。
 */
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { init as initLexer, parse as lexModule } from "es-module-lexer";
import { BaseSequencer, type TestSpecification, type Vitest } from "vitest/node";

type Esbuild = typeof import("esbuild");

let esbuildModule: Esbuild | undefined;
/** tsx 自带的 esbuild（与各步骤测试打包 CLI 用的是同一份），用到时才加载 */
function esbuild(): Esbuild {
  esbuildModule ??= createRequire(createRequire(import.meta.url).resolve("tsx"))("esbuild") as Esbuild;
  return esbuildModule;
}

export interface OncePlan {
  /** 要跑的文件，保持传入的顺序 */
  run: string[];
  /** 没有再跑的副本 → 跑了的那一份（同一组里路径排在最前的，也就是最早的那一步） */
  copies: Map<string, string>;
  /** 各跑各的、不和别处比的文件 → 为什么（哪个文件知道自己在哪儿，或哪个导入解析不了） */
  alone: Map<string, string>;
  /** 算这个计划用的毫秒数 */
  ms: number;
  /** 没能算出来时的原因：这时全部照跑 */
  error?: string;
}

/** 一个文件里让它「知道自己在哪儿」的东西（见文件头第 2 条）；空数组就是没有 */
export type Location = string[];

/** 闭包里的一个文件：导入图里的边与格式 */
interface GraphNode {
  /** 解析到仓库里的文件（绝对路径） */
  local: string[];
  /** 解析到 node_modules 或 Node 内置模块的：记下解析的结果（真实路径或 node:xx） */
  external: string[];
  format?: string;
  /** 有导入解析不了 */
  unresolved: boolean;
}

/** 导入图里的键：绝对路径；Windows 上 vitest 给的是 Z:/a/b 的写法、盘符大小写也不一定，统一成 path.resolve 的小写 */
export function norm(file: string): string {
  const resolved = path.resolve(file);
  return process.platform === "win32" ? resolved.toLowerCase() : resolved;
}

const SELF = Symbol("once-per-code");
/** 裸模块名（不以 . 或 / 开头）里不是 node: 的那些：esbuild 的过滤条件是 Go 的正则，没有否定的前瞻 */
const BARE_NOT_NODE = /^(?:[^./n]|n(?:[^o]|o(?:[^d]|d(?:[^e]|e[^:]))))/;

/** 用 esbuild 的解析器算出全部测试文件的导入图（一次构建，只要 metafile，不写文件） */
export async function importGraph(files: readonly string[], root: string): Promise<Map<string, GraphNode>> {
  const toNodeModules = new Map<string, string[]>(); // 导入者 → 解析到的 node_modules 里的路径
  const unresolved = new Set<string>();
  const memo = new Map<string, Promise<import("esbuild").ResolveResult>>();
  const result = await esbuild().build({
    absWorkingDir: root,
    stdin: { contents: files.map((f) => `import ${JSON.stringify(`./${toPosix(path.relative(root, f))}`)};`).join("\n"), resolveDir: root, loader: "js" },
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "node",
    outfile: path.join(root, "once-per-code.out.js"), // 不写文件（write: false），只是 esbuild 要一个名字
    logLevel: "silent",
    plugins: [
      {
        name: "once-per-code",
        setup(build) {
          // 裸模块名：在 node_modules 里的包不展开（它们两份副本共用），工作区的包（如 scripted-provider）照常展开
          build.onResolve({ filter: BARE_NOT_NODE }, async (args) => {
            if (args.pluginData === SELF) return undefined;
            const key = `${args.resolveDir}\0${args.path}\0${args.kind}`;
            let pending = memo.get(key);
            if (pending === undefined) {
              pending = build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: SELF });
              memo.set(key, pending);
            }
            const resolved = await pending;
            if (resolved.errors.length > 0) {
              unresolved.add(norm(args.importer));
              return { path: args.path, external: true };
            }
            if (resolved.external) return { path: args.path, external: true };
            if (/[\\/]node_modules[\\/]/.test(resolved.path)) {
              toNodeModules.set(norm(args.importer), [...(toNodeModules.get(norm(args.importer)) ?? []), norm(resolved.path)]);
              return { path: resolved.path, external: true };
            }
            return { path: resolved.path };
          });
        },
      },
    ],
  });
  const graph = new Map<string, GraphNode>();
  for (const [key, input] of Object.entries(result.metafile.inputs)) {
    if (key === "<stdin>") continue;
    const file = norm(path.resolve(root, key));
    const node: GraphNode = { local: [], external: [...(toNodeModules.get(file) ?? [])], unresolved: unresolved.has(file) };
    if (input.format !== undefined) node.format = input.format;
    for (const imported of input.imports) {
      if (imported.external) {
        if (!path.isAbsolute(imported.path)) node.external.push(imported.path); // node:fs 之类；node_modules 里的上面已经记下
      } else node.local.push(norm(path.resolve(root, imported.path)));
    }
    graph.set(file, node);
  }
  return graph;
}

/** file 连同它导入的一切（深度优先，不重复） */
export function closureOf(file: string, graph: ReadonlyMap<string, GraphNode>): string[] {
  const seen = new Set<string>([file]);
  const stack = [file];
  while (stack.length > 0) {
    for (const next of graph.get(stack.pop()!)?.local ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        stack.push(next);
      }
    }
  }
  return [...seen];
}

/** 测试框架告诉测试它自己路径的地方，以及按测试文件的位置找文件的 API（esbuild 的输出里已没有注释） */
const LOCATION_WORDS = /\b(__dirname|__filename|testPath|filepath|importActual|importMock|toMatchSnapshot|toMatchFileSnapshot|toThrowErrorMatchingSnapshot)\b/g;

/** 一段 JavaScript（esbuild 转换过的）里让它知道自己在哪儿的东西 */
export function locationIn(js: string, format?: string): Location {
  const found = new Set<string>();
  if (format === "cjs") found.add("CommonJS（__dirname、require）");
  try {
    const [imports] = lexModule(js);
    for (const i of imports) {
      if (i.d === -2) found.add("import.meta");
      else if (i.d > -1 && i.n === undefined) found.add("参数不是字面量的 import()");
    }
  } catch {
    found.add("es-module-lexer 读不懂");
  }
  for (const m of js.matchAll(LOCATION_WORDS)) found.add(m[1]!);
  return [...found].sort();
}

const LOADERS: Record<string, "ts" | "tsx" | "js" | "json"> = { ".ts": "ts", ".mts": "ts", ".cts": "ts", ".tsx": "tsx", ".js": "js", ".mjs": "js", ".cjs": "js", ".jsx": "tsx", ".json": "json" };

/** 每个文件「知道自己在哪儿」的判断，按 esbuild 版本与文件内容缓存（三份 npm test 同时写也没关系：同一个键的值总相同） */
class LocationCache {
  private file: string;
  private entries: Record<string, Location> = {};
  private dirty = false;

  constructor(dir: string) {
    this.file = path.join(dir, `locations-${esbuild().version}.json`);
    try {
      this.entries = JSON.parse(fs.readFileSync(this.file, "utf8")) as Record<string, Location>;
    } catch {
      this.entries = {};
    }
  }

  async get(file: string, sha: string, format: string | undefined, bytes: Buffer): Promise<Location> {
    const loader = LOADERS[path.extname(file).toLowerCase()];
    if (loader === "json") return [];
    if (loader === undefined) return [`不认识的文件类型 ${path.extname(file)}`];
    const key = `${sha}:${loader}:${format ?? ""}`;
    const cached = this.entries[key];
    if (cached !== undefined) return cached;
    let found: Location;
    try {
      const { code } = await esbuild().transform(bytes.toString("utf8"), { loader, format: "esm", logLevel: "silent" });
      found = locationIn(code, format);
    } catch {
      found = ["esbuild 转换失败"];
    }
    this.entries[key] = found;
    this.dirty = true;
    return found;
  }

  save(): void {
    if (!this.dirty) return;
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      const temp = `${this.file}.${process.pid}.tmp`;
      fs.writeFileSync(temp, JSON.stringify(this.entries));
      fs.renameSync(temp, this.file);
    } catch {
      // 缓存写不进去只是下次慢一点
    }
  }
}

export const defaultCacheDir = path.join(os.tmpdir(), "mini-agent-harness-once-per-code");

function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}

function sha256(data: string | Buffer): string {
  return crypto.createHash("sha256").update(data).digest("hex");
}

/** 向上找最近的 name，读它的一部分；没有就是 null。按目录缓存 */
function nearestJson(cache: Map<string, unknown>, dir: string, name: string, pick: (json: Record<string, unknown>, file: string) => unknown): unknown {
  const key = `${name}\0${dir}`;
  if (cache.has(key)) return cache.get(key);
  const file = path.join(dir, name);
  let value: unknown;
  if (fs.existsSync(file)) {
    const text = fs.readFileSync(file, "utf8");
    try {
      value = pick(JSON.parse(text) as Record<string, unknown>, file);
    } catch {
      value = sha256(text); // 读不懂（带注释的 tsconfig 之类）：整个文件的字节都算
    }
  } else {
    const parent = path.dirname(dir);
    value = parent === dir ? null : nearestJson(cache, parent, name, pick);
  }
  cache.set(key, value);
  return value;
}

/** tsconfig.json 里影响编译的部分；extends 的那个文件按字节算（它相对这个 tsconfig 找，两份副本可能找到不同的文件） */
function compilerOptions(json: Record<string, unknown>, file: string): unknown {
  const base = typeof json.extends === "string" ? path.resolve(path.dirname(file), json.extends) : undefined;
  return [json.compilerOptions ?? null, base === undefined ? null : fs.existsSync(base) ? sha256(fs.readFileSync(base)) : json.extends];
}

/**
 * 算出这一次要跑哪些文件。files 是 vitest 选中的测试文件（绝对路径）；root 是仓库根目录。
 * 出任何错都全部照跑（error 里写原因）。
 */
export async function planOncePerCode(files: readonly string[], root: string, cacheDir = defaultCacheDir): Promise<OncePlan> {
  const started = performance.now();
  const all = (): OncePlan => ({ run: [...files], copies: new Map(), alone: new Map(), ms: performance.now() - started });
  if (files.length < 2) return all();
  try {
    await initLexer;
    const graph = await importGraph(files, root);
    const local = new Map(files.map((f) => [f, norm(f)]));
    const locations = new LocationCache(cacheDir);
    const shaOf = new Map<string, string>();
    const locationOf = new Map<string, Location>();
    const jsonCache = new Map<string, unknown>();
    const keys = new Map<string, string>();
    const alone = new Map<string, string>();
    for (const test of [...files].sort()) {
      const dir = path.dirname(local.get(test)!);
      const entries: string[][] = [];
      for (const file of closureOf(local.get(test)!, graph)) {
        const node = graph.get(file);
        if (node === undefined || node.unresolved) {
          alone.set(test, `${toPosix(path.relative(root, file))}：有解析不了的导入`);
          break;
        }
        if (!shaOf.has(file)) {
          const bytes = fs.readFileSync(file);
          shaOf.set(file, sha256(bytes));
          locationOf.set(file, await locations.get(file, shaOf.get(file)!, node.format, bytes));
        }
        if (locationOf.get(file)!.length > 0) {
          alone.set(test, `${toPosix(path.relative(root, file))}：${locationOf.get(file)!.join("、")}`);
          break;
        }
        const type = nearestJson(jsonCache, path.dirname(file), "package.json", (j) => j.type ?? null);
        const tsconfig = nearestJson(jsonCache, path.dirname(file), "tsconfig.json", compilerOptions);
        entries.push([toPosix(path.relative(dir, file)), shaOf.get(file)!, JSON.stringify(type), JSON.stringify(tsconfig), ...[...node.external].sort()]);
      }
      entries.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
      keys.set(test, alone.has(test) ? `alone:${test}` : sha256(JSON.stringify(entries)));
    }
    locations.save();
    const firstWithKey = new Map<string, string>();
    const copies = new Map<string, string>();
    for (const test of [...files].sort()) {
      const key = keys.get(test)!;
      const first = firstWithKey.get(key);
      if (first === undefined) firstWithKey.set(key, test);
      else copies.set(test, first);
    }
    return { run: files.filter((f) => !copies.has(f)), copies, alone, ms: performance.now() - started };
  } catch (error) {
    return { ...all(), error: (error as Error).message.split("\n")[0] ?? String(error) };
  }
}

/**
 * 根目录配置里的一份：报告器在运行开始时问它（好说出跑几个文件），排序器再问一次，算的是同一份（按文件列表记住）。
 * 排序器拿到的是 vitest 按命令行过滤之后的文件：只跑 step09 的某个文件时，它的「前一步」不在里面，它就照跑。
 */
export class OncePerCode {
  private last: { key: string; plan: Promise<OncePlan> } | undefined;

  constructor(private readonly cacheDir = defaultCacheDir) {}

  plan(files: readonly string[], root: string): Promise<OncePlan> {
    const key = `${root}\n${[...files].sort().join("\n")}`;
    if (this.last?.key !== key) this.last = { key, plan: planOncePerCode(files, root, this.cacheDir) };
    return this.last.plan;
  }

  /** 给 test.sequence.sequencer：先去掉与前面某一份相同的副本，其余照 vitest 默认的顺序 */
  sequencer(): new (ctx: Vitest) => BaseSequencer {
    const once = this;
    return class OncePerCodeSequencer extends BaseSequencer {
      override async sort(specs: TestSpecification[]): Promise<TestSpecification[]> {
        const { copies } = await once.plan(
          specs.map((s) => s.moduleId),
          this.ctx.config.root,
        );
        return super.sort(specs.filter((s) => !copies.has(s.moduleId)));
      }
    };
  }
}
