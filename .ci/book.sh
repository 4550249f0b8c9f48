#!/usr/bin/env bash
# CI 的书站一段（issue 23）：从 book/ 自己的锁文件安装，构建书站，再用系统的 Chromium 跑浏览器测试
# （爬遍站内链接、每张图、每一处引用、十个中文查询、截图）。测试最后一行是「N passed, M failed」。
# 用法：bash .ci/book.sh   （在 .ci/run 里作为一个 stage 调用；CI=true 时找不到 Chromium 直接失败）
set -euo pipefail
cd "$(dirname "$0")/.."

# 提示框的标签是 emoji（📘 ⚠️ 🌱 🛠）：没有彩色 emoji 字体时截图里是方块。Debian 的 fonts-noto-color-emoji 补上它
if ! fc-list 2>/dev/null | grep -qi "Noto Color Emoji"; then
  if [[ "$(uname -s)" == "Linux" && $EUID -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends fonts-noto-color-emoji >/dev/null 2>&1 ||
      { apt-get update >/dev/null && apt-get install -y --no-install-recommends fonts-noto-color-emoji >/dev/null; }
    echo "-- 装上了 fonts-noto-color-emoji（截图里的提示框标签）"
  else
    echo "注意：没有彩色 emoji 字体（Debian/Ubuntu：apt-get install fonts-noto-color-emoji），截图里提示框的标签会是方块" >&2
  fi
fi

t0=$SECONDS
# 与学习者第一次 npm run book 同一条路：npm ci 锁文件里的包，Mermaid 与 Pi 的包只取要用的文件（scripts/lib/book-install.ts）
rm -rf book/node_modules
node_modules/.bin/tsx scripts/book.ts install
size_mb=$(du -sm book/node_modules | cut -f1)
echo "-- book/ 依赖安装：$((SECONDS - t0))s，${size_mb} MB"
# DESIGN §13：book/node_modules ≤ 250 MB
((size_mb <= 250)) || { echo "book/node_modules 有 ${size_mb} MB，超过 250 MB" >&2; exit 1; }

t0=$SECONDS
# 构建只有这一次：浏览器测试用它的结果（--no-build）。另记下 CPU 时间与负载：机器忙时墙钟时间不可比
uptime
if [[ -x /usr/bin/time ]]; then
  /usr/bin/time -f "-- npm run book:build：%e s 墙钟，CPU %U s 用户态 + %S s 内核态" npm run --silent book:build
else
  npm run --silent book:build
  echo "-- npm run book:build：$((SECONDS - t0))s"
fi

# 浏览器测试用刚才构建好的 dist/（--no-build），打印 N passed, M failed
npm run --silent book:test -- --no-build
