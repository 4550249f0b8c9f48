/**
 * 测试现写的扩展文件放在哪里：每个测试一个新的临时目录，测试结束时删掉。
 * 在测试文件的顶层调用一次；dir() 是当前这个测试的目录。
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";

export interface ExtensionScratch {
  dir(): string;
  /** 在 dir() 里写一个扩展文件（用 .mjs：不依赖 TypeScript 转译也能被 import），返回它的路径。 */
  writeExtension(name: string, source: string): string;
}

export function extensionScratch(prefix: string): ExtensionScratch {
  let current = "";
  // 用到时才建：一个测试文件里多数测试用不着它，每个测试都建一个再删掉是白费
  const dir = (): string => (current ||= fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  afterEach(() => {
    if (current) fs.rmSync(current, { recursive: true, force: true, maxRetries: 10 });
    current = "";
  });
  return {
    dir,
    writeExtension(name, source) {
      const file = path.join(dir(), name);
      fs.writeFileSync(file, source);
      return file;
    },
  };
}
