/**
 * edit 工具：把文件里的几段原文换成新文字。
 * 名字与参数照 Pi 1.6.0（pi-coding-agent 的 src/core/tools/edit.ts：edit { path, edits: [{ oldText, newText }] }）。
 *
 * 规矩与 Pi 相同：
 *   - 每个 oldText 都对照「原文件」匹配，必须恰好出现一次；没找到、出现多处，都是错误结果，并说出几处；
 *   - 各处不许重叠；替换从后往前做，前面的位置就不受后面的影响；
 *   - 先全部查完、算好，再写：任何一处不行，文件一个字节都不动；
 *   - CRLF 的文件写回去还是 CRLF，开头的 BOM 还在。
 * 与 Pi 不同：只做精确匹配（Pi 找不到时还会忽略行尾空白、把弯引号当直引号再找一次）；
 * 行尾只分「有 CRLF」与「全是 LF」两种，混用两种行尾的文件写回时统一成 CRLF。
 */

import { readFile, stat, writeFile } from "node:fs/promises";
import { describeFsError } from "../guards/fs-errors.js";
import { decodeUtf8 } from "../guards/text-file.js";
import { resolveInsideProject } from "./project-path.js";
import type { ToolDefinition, ToolOutput } from "./types.js";

export interface Edit {
  oldText: string;
  newText: string;
}

type Edited = { ok: true; text: string } | { ok: false; error: string };

/** 在 text 里做完全部替换。有一处不行就返回一句交给模型的说明，什么都不替换。shown 是模型给的路径。 */
export function applyEdits(text: string, edits: readonly Edit[], shown: string): Edited {
  const fail = (error: string): Edited => ({ ok: false, error });
  const name = (index: number): string => (edits.length === 1 ? "oldText" : `edits[${index}].oldText`);
  const found: Array<{ index: number; start: number; end: number; newText: string }> = [];
  for (const [index, { oldText, newText }] of edits.entries()) {
    if (oldText === "") return fail(`${name(index)} 不能为空`);
    // 数的是互不重叠的出现次数（同 Pi）：在 "aaa" 里找 "aa" 算 1 处
    const count = text.split(oldText).length - 1;
    if (count === 0) return fail(`在 ${shown} 里没找到 ${name(index)}（0 处）：它必须与文件内容逐字相同，包括空格、缩进与换行`);
    if (count > 1) return fail(`${name(index)} 在 ${shown} 里出现了 ${count} 处，必须唯一：多带几行上下文，让它只出现一次`);
    const start = text.indexOf(oldText);
    found.push({ index, start, end: start + oldText.length, newText });
  }
  found.sort((a, b) => a.start - b.start);
  for (const [i, next] of found.entries()) {
    const previous = found[i - 1];
    // 首尾相接不算重叠
    if (previous && previous.end > next.start) return fail(`edits[${previous.index}] 与 edits[${next.index}] 在 ${shown} 里重叠：合成一处，或改成互不重叠的几段`);
  }
  let result = text;
  for (const { start, end, newText } of found.reverse()) result = result.slice(0, start) + newText + result.slice(end);
  if (result === text) return fail(`替换之后 ${shown} 没有任何变化（oldText 与 newText 一样？）`);
  return { ok: true, text: result };
}

const BOM = "\uFEFF";
const toLf = (text: string): string => text.replace(/\r\n/g, "\n");

/** 拆开文件：开头的 BOM、是不是 CRLF、换成 LF 的正文（模型写的 oldText 里不会有看不见的 BOM，换行多半是 \n）。 */
function splitFile(raw: string): { bom: string; crlf: boolean; text: string } {
  const bom = raw.startsWith(BOM) ? BOM : "";
  const body = raw.slice(bom.length);
  return { bom, crlf: body.includes("\r\n"), text: toLf(body) };
}

async function editInsideProject(requested: string, edits: Edit[], cwd: string, signal?: AbortSignal): Promise<ToolOutput> {
  const fail = (content: string): ToolOutput => ({ content, isError: true });
  const cancelled = fail(`修改被取消：${requested}（文件没有改动）`);
  if (edits.length === 0) return fail("edits 不能是空的：至少给一处 { oldText, newText }");
  try {
    const target = await resolveInsideProject(requested, cwd, "修改");
    if (!target.ok) return fail(target.error);
    const info = await stat(target.path);
    if (!info.isFile()) return fail(`${requested} 不是普通文件`);
    const decoded = decodeUtf8(await readFile(target.path, { signal }), requested);
    if (!decoded.ok) return fail(decoded.error);
    const file = splitFile(decoded.text);
    const edited = applyEdits(file.text, edits.map((edit) => ({ oldText: toLf(edit.oldText), newText: toLf(edit.newText) })), requested);
    if (!edited.ok) return fail(edited.error);
    // 安全点：算好了、还没写。写完之后不再看信号：文件已经改了，就说改了
    if (signal?.aborted) return cancelled;
    await writeFile(target.path, file.bom + (file.crlf ? edited.text.replace(/\n/g, "\r\n") : edited.text), "utf8");
  } catch (error) {
    if (signal?.aborted) return cancelled;
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return fail(describeFsError(error, requested, "修改") + (missing ? "（edit 只改已有的文件，新建请用 write）" : ""));
  }
  return { content: `已修改 ${requested}：替换了 ${edits.length} 处` };
}

export const editTool: ToolDefinition = {
  name: "edit",
  description:
    "修改项目目录里的一个已有文件：edits 的每一项把 oldText 换成 newText。oldText 必须与文件内容逐字相同，并且在文件里只出现一次；" +
    "各项都对照原文件匹配，互不重叠。出错时文件不变",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "相对于项目目录的文件路径" },
      edits: {
        type: "array",
        description: "要做的替换，至少一项",
        items: {
          type: "object",
          properties: {
            oldText: { type: "string", description: "要被替换的原文，逐字相同，在原文件里唯一" },
            newText: { type: "string", description: "换上的新文字" },
          },
          required: ["oldText", "newText"],
          additionalProperties: false,
        },
      },
    },
    required: ["path", "edits"],
    additionalProperties: false,
  },
  // 参数已由注册表按上面的 schema 校验过（validate.ts 也查数组的每一项）
  execute(args, context) {
    return editInsideProject(String(args.path), args.edits as Edit[], context.cwd, context.signal);
  },
};
