// 在所有测试之前确保三个钉住版本的 Pi 源码已从 source map 还原（已有就跳过）。
import { ensurePiSources } from "../scripts/lib/source-maps.ts";

export default function setup(): void {
  ensurePiSources();
}
