/**
 * AgentSession 里我们改了的设置（其余全是 Pi 的默认）。单独一个文件：R12 的生成代码在 Node 20 上也要读它，
 * 而 pi-session.ts 一导入就会加载 pi-coding-agent。
 */
export const PI_SESSION_SETTINGS = {
  /** 回合层第一次等待：Pi 默认 2000 ms，缩成 1 ms——只改等多久，不改等几次。 */
  retry: { baseDelayMs: 1 },
};
