/**
 * 查看器的两道门：读之前看清给的是不是一个能画的会话文件，写之前看清 --out 能不能写。
 * 每种情况一行中文，说出是哪个路径、哪里不对、怎么改；不打印 Node 的 errno 原文。
 */
import fs from "node:fs";
import path from "node:path";

/**
 * 页面把每个条目都嵌进一个 HTML 文件：再大，浏览器就打不开了，生成它也要几倍于文件的内存。
 * 与步骤读会话时单行的上限（64 MiB）同一个数。
 */
export const VIEW_LIMIT_BYTES = 64 * 1024 * 1024;

/** 给人看的大小：1.1 GB、64 MB、900 字节 */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${Math.round(bytes / 1024 ** 2)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} 字节`;
}

function kindOf(stat: fs.Stats): string {
  if (stat.isFIFO()) return "命名管道";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "设备文件";
  if (stat.isSocket()) return "套接字";
  return "特殊文件";
}

/**
 * 会话文件能不能画：存在、是普通文件、不超过上限。不能时抛出一行说明（调用者加上「无法打开会话：」）。
 * given 是用户敲的原样（说明相对路径从哪算时要用），cwd 是敲命令时所在的目录。
 */
export function checkSessionFile(file: string, given: string, cwd: string, limit = VIEW_LIMIT_BYTES): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === "EACCES" || code === "EPERM") throw new Error(`没有权限读 ${file}`);
    const relative = path.isAbsolute(given) ? "" : `（相对路径按你敲命令时所在的目录算：${cwd}）`;
    throw new Error(`找不到会话文件：${file}${relative}`);
  }
  if (stat.isDirectory()) {
    const inside = listSessions(file);
    const hint = inside.length > 0 ? `，里面有：${inside.slice(0, 5).join("、")}${inside.length > 5 ? " 等" : ""}` : "，里面没有 .jsonl 文件";
    throw new Error(`${file} 是一个目录，不是会话文件：请给出其中的一个 .jsonl 文件${hint}`);
  }
  if (!stat.isFile()) throw new Error(`${file} 是${kindOf(stat)}，不是会话文件：查看器只读普通的 .jsonl 文件`);
  if (stat.size > limit) {
    throw new Error(
      `${file} 有 ${formatBytes(stat.size)}，超过查看器的上限 ${formatBytes(limit)}：画成一页浏览器也打不开。` +
        `要接着用它，在步骤里 npm start -- --session；要看，复制一份只留最后几千行再画`,
    );
  }
}

function listSessions(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((name) => name.endsWith(".jsonl"))
      .sort();
  } catch {
    return [];
  }
}

/** 把页面写到 out；写不了时抛出一行说明，不留下写了一半的页面。 */
export function writePage(out: string, html: string): void {
  if (isDirectory(out)) {
    throw new Error(`--out ${out} 是一个目录：请写页面的文件名，例如 ${path.join(out, "page.html")}`);
  }
  try {
    fs.mkdirSync(path.dirname(out), { recursive: true });
  } catch (error) {
    throw new Error(`--out ${out}：建不了它所在的目录（${reason(error)}）`);
  }
  const temp = `${out}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temp, html);
    fs.renameSync(temp, out);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw new Error(`--out ${out}：写不了页面（${reason(error)}）`);
  }
}

function isDirectory(file: string): boolean {
  try {
    return fs.statSync(file).isDirectory();
  } catch {
    return false; // 不存在，或上级不是目录：交给下面建目录时说
  }
}

/** 常见的写文件失败，说成人话 */
function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOTDIR":
    case "EEXIST":
      return "路径中间有一段是文件，不是目录";
    case "EACCES":
    case "EPERM":
      return "没有写入权限";
    case "ENOSPC":
      return "磁盘已满";
    case "EROFS":
      return "文件系统是只读的";
    case "ENAMETOOLONG":
      return "路径太长";
    case "EISDIR":
      return "那里是一个目录";
    default:
      return typeof code === "string" ? code : "未知原因";
  }
}
