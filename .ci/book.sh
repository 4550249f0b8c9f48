#!/usr/bin/env bash
# CI 的书站一段（issue 23）：从 book/ 自己的锁文件安装，构建书站，再用系统的 Chromium 跑浏览器测试
# （爬遍站内链接、每张图、每一处引用、十个中文查询、截图）。测试最后一行是「N passed, M failed」。
# 用法：bash .ci/book.sh   （在 .ci/run 里作为一个 stage 调用；CI=true 时找不到 Chromium 直接失败）
set -euo pipefail
cd "$(dirname "$0")/.."

t0=$SECONDS
npm ci --prefix book --no-audit --no-fund --loglevel=error
echo "-- book/ 依赖安装：$((SECONDS - t0))s，$(du -sh book/node_modules | cut -f1)"
# 锁文件的指纹：npm run book* 据此知道已经装好，不再重装
node -e 'const c=require("crypto"),f=require("fs");f.writeFileSync("book/node_modules/.book-lock.sha256",c.createHash("sha256").update(f.readFileSync("book/package-lock.json")).digest("hex")+"\n")'

t0=$SECONDS
npm run --silent book:build
echo "-- npm run book:build：$((SECONDS - t0))s"

# 浏览器测试用刚才构建好的 dist/（--no-build），打印 N passed, M failed
npm run --silent book:test -- --no-build
