/**
 * 在一个进程里对几个 tsconfig 项目做 tsc --noEmit 的检查，共用解析好的 .d.ts。
 *
 * 为什么不每个项目起一次 tsc：每个步骤的测试都 import vitest，一个项目要读进约 9.6 万行类型声明
 * （@types/node、vitest、vite……），一次 tsc 里解析、绑定它们就占了 CPU 的大半，而 20 个项目读的是同一批文件。
 * 这里每个项目仍是自己的程序（自己的编译选项、自己的文件、自己的类型检查器），报告的错误与 tsc --noEmit 相同；
 * 只有同一个文件、同样的解析选项时，语法树共用一份（TypeScript 的语言服务在多个项目之间也是这样共用的）。
 */
import { createRequire } from "node:module";
import path from "node:path";
import type * as TS from "typescript";

// 用根目录装的 typescript（和 npm run typecheck 以前起的 tsc 是同一个）
const ts = createRequire(import.meta.url)("typescript") as typeof TS;

export interface ProjectResult {
  dir: string;
  ok: boolean;
  /** 和 tsc 一样格式的错误（没有错误时为空） */
  output: string;
  /** 这个程序里的文件数（用来说明确实检查了东西） */
  files: number;
}

const formatHost: TS.FormatDiagnosticsHost = {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => process.cwd(),
  getNewLine: () => "\n",
};

/** 依次检查 dirs 里的每个项目（各自的 tsconfig.json），语法树按文件与解析选项缓存、在项目之间共用。 */
export function checkProjects(dirs: readonly string[], onResult: (result: ProjectResult) => void = () => {}): ProjectResult[] {
  const cache = new Map<string, TS.SourceFile | undefined>();
  const results: ProjectResult[] = [];
  for (const dir of dirs) {
    const result = checkProject(dir, cache);
    results.push(result);
    onResult(result);
  }
  return results;
}

function checkProject(dir: string, cache: Map<string, TS.SourceFile | undefined>): ProjectResult {
  const configFile = path.join(dir, "tsconfig.json");
  const configDiagnostics: TS.Diagnostic[] = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(configFile, { noEmit: true }, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => configDiagnostics.push(d),
  });
  if (parsed === undefined) return { dir, ok: false, output: ts.formatDiagnostics(configDiagnostics, formatHost), files: 0 };
  const options = parsed.options;
  const host = ts.createCompilerHost(options);
  const original = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile) => {
    // 解析结果取决于这些选项：语言版本、模块格式、怎样判断是不是模块；同样的才共用
    const settings = typeof languageVersionOrOptions === "object" ? languageVersionOrOptions : { languageVersion: languageVersionOrOptions };
    const key = JSON.stringify([path.resolve(fileName), settings.languageVersion, settings.impliedNodeFormat ?? null, options.moduleDetection ?? null, settings.jsDocParsingMode ?? null]);
    if (!shouldCreateNewSourceFile && cache.has(key)) return cache.get(key);
    const file = original(fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile);
    cache.set(key, file);
    return file;
  };
  const program = ts.createProgram({ rootNames: parsed.fileNames, options, host, projectReferences: parsed.projectReferences, configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed) });
  // 与 tsc --noEmit 报告的相同：配置文件、编译选项、语法、全局、语义（有语法错误时 tsc 不再报语义错误）
  const diagnostics = [...program.getConfigFileParsingDiagnostics(), ...program.getOptionsDiagnostics(), ...program.getSyntacticDiagnostics()];
  if (diagnostics.length === 0) diagnostics.push(...program.getGlobalDiagnostics(), ...program.getSemanticDiagnostics());
  const sorted = ts.sortAndDeduplicateDiagnostics(diagnostics);
  return { dir, ok: sorted.length === 0, output: ts.formatDiagnostics(sorted, formatHost), files: program.getSourceFiles().length };
}
