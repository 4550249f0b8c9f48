// 测试用的故障注入：在 fs 这一层造出操作系统会给的错误（见 test/session-hostile.test.ts）。
// 真的把磁盘写满、把目录挂成只读都要 root 权限之外的手段（CI 就是以 root 运行的，chmod 拦不住 root），所以换掉 fs 的函数：
//   "enospc:N"  会话文件（.jsonl）的前 N 次追加照常，之后每次只写进半行就失败（ENOSPC，磁盘已满）
//   "erofs"     检查 .sessions 是否可写时失败（EROFS，只读的文件系统）
// 程序用的是 fs.appendFileSync 这样的写法（不是具名导入），换掉 fs 对象上的函数就够了。
import fs from "node:fs";

/** 操作系统给的错误：有 /dev/full 的系统上真的写一次它，拿到内核给的 ENOSPC；别处照样造一个。 */
function systemError(code: string, syscall: string): Error {
  if (code === "ENOSPC" && fs.existsSync("/dev/full")) {
    try {
      fs.writeFileSync("/dev/full", "x");
    } catch (error) {
      return error as Error;
    }
  }
  return Object.assign(new Error(`${code}: 模拟的故障, ${syscall}`), { code, syscall });
}

/** 装上一种故障，返回拆掉它的函数。 */
export function injectFault(spec: string): () => void {
  const [kind, count] = spec.split(":");
  if (kind === "enospc") {
    const original = fs.appendFileSync;
    let writes = 0;
    fs.appendFileSync = (file, data, options) => {
      if (!String(file).endsWith(".jsonl") || ++writes <= Number(count)) return original.call(fs, file, data, options);
      original.call(fs, file, String(data).slice(0, 20), options); // 写满之前已经写进去的那一截
      throw systemError("ENOSPC", "write");
    };
    return () => {
      fs.appendFileSync = original;
    };
  }
  if (kind === "erofs") {
    const original = fs.accessSync;
    fs.accessSync = (file, mode) => {
      if (String(file).includes(".sessions")) throw systemError("EROFS", "access");
      original.call(fs, file, mode);
    };
    return () => {
      fs.accessSync = original;
    };
  }
  throw new Error(`不认识的故障：${spec}`);
}
