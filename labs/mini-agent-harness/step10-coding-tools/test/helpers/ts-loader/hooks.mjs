// 加载器钩子（运行在 Node 的加载器线程里）。见 register.mjs 的说明。
import { createHash } from "node:crypto";
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { cachedFile, esbuild } from "./cache.mjs";

function transpile(source, file) {
  // 缓存的键是源码内容的哈希：源码一改，缓存自然失效
  const key = createHash("sha256").update(source).digest("hex");
  const cached = cachedFile("ts-cache", `${key}.mjs`, () =>
    esbuild().transformSync(source, { loader: "ts", format: "esm", target: "node20", sourcefile: file }).code,
  );
  return fs.readFileSync(cached, "utf8");
}

export async function resolve(specifier, context, nextResolve) {
  // TypeScript 的写法：源码里 import "./x.js"，磁盘上是 x.ts。先看 x.ts 在不在：
  // 若先让 Node 去找 x.js，找不到时它要构造带提示的错误（还会按 CommonJS 再找一遍），每个 import 都白花这份 CPU
  if (/^\.{1,2}\//.test(specifier) && specifier.endsWith(".js") && context.parentURL?.startsWith("file:")) {
    const ts = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
    if (fs.existsSync(ts)) return nextResolve(ts.href, context);
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (url.startsWith("file:") && /\.m?ts$/.test(url)) {
    const file = fileURLToPath(url);
    const source = fs.readFileSync(file, "utf8");
    return { format: "module", source: transpile(source, file), shortCircuit: true };
  }
  return nextLoad(url, context);
}
