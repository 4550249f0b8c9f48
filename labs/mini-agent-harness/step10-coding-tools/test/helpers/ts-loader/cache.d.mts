// cache.mjs 的类型（test/helpers/cli.ts 从 TypeScript 里用它）。只写出用到的那一点 esbuild API。
export interface Esbuild {
  version: string;
  buildSync(options: Record<string, unknown>): { outputFiles: Array<{ contents: Uint8Array }> };
}
export function esbuild(): Esbuild;
export function cachedFile(kind: string, name: string, produce: () => string | Uint8Array): string;
