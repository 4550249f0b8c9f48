// 测试用的故障注入：跑 CLI 的 worker 线程在 main.ts 之前导入它（runCli 的 preload，见 test/session-hostile.test.ts），
// 换掉的只是那个 worker 自己的 fs。
// 真的把磁盘写满、把目录挂成只读都要 root 权限之外的手段（CI 就是以 root 运行的，chmod 拦不住 root），
// 所以在 fs 这一层按环境变量 FS_FAULT 造出操作系统会给的错误：
//   FS_FAULT=enospc:N  会话文件（.jsonl）的前 N 次追加照常，之后每次只写进半行就失败（ENOSPC，磁盘已满）
//   FS_FAULT=erofs     检查 .sessions 是否可写时失败（EROFS，只读的文件系统）
import fs from "node:fs";

const [kind, count] = (process.env.FS_FAULT ?? "").split(":");

/** 操作系统给的错误：有 /dev/full 的系统上真的写一次它，拿到内核给的 ENOSPC；别处照样造一个。 */
function systemError(code, syscall) {
  if (code === "ENOSPC" && fs.existsSync("/dev/full")) {
    try {
      fs.writeFileSync("/dev/full", "x");
    } catch (error) {
      return error;
    }
  }
  return Object.assign(new Error(`${code}: 模拟的故障, ${syscall}`), { code, syscall });
}

if (kind === "enospc") {
  const original = fs.appendFileSync;
  let writes = 0;
  fs.appendFileSync = function (file, data, ...rest) {
    if (!String(file).endsWith(".jsonl") || ++writes <= Number(count)) return original.call(fs, file, data, ...rest);
    original.call(fs, file, String(data).slice(0, 20), ...rest); // 写满之前已经写进去的那一截
    throw systemError("ENOSPC", "write");
  };
}

if (kind === "erofs") {
  const original = fs.accessSync;
  fs.accessSync = function (file, ...rest) {
    if (String(file).includes(".sessions")) throw systemError("EROFS", "access");
    return original.call(fs, file, ...rest);
  };
}
