import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { checkProjects } from "../lib/typecheck.ts";
import { makeFixtureRoot, removeFixtureRoot, writeFiles } from "./helpers/fixture.ts";

// npm run typecheck 在一个进程里依次检查几个项目、共用解析好的文件：每个项目的错误仍只算它自己的
const root = makeFixtureRoot("typecheck");
afterAll(() => removeFixtureRoot(root));

const tsconfig = (include: string[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ compilerOptions: { target: "es2022", lib: ["es5"], types: [], strict: true, noEmit: true, ...extra }, include });

it("两个项目共用一个文件：错误只报在包含它的项目里，写法与 tsc 相同；语法错误也报", () => {
  writeFiles(root, {
    "shared/util.ts": "export const twice = (n: number): number => n * 2;\n",
    "a/tsconfig.json": tsconfig(["*.ts", "../shared/*.ts"]),
    "a/main.ts": 'import { twice } from "../shared/util";\nexport const x: string = twice(2);\n',
    "b/tsconfig.json": tsconfig(["*.ts", "../shared/*.ts"]),
    "b/main.ts": 'import { twice } from "../shared/util";\nexport const y: number = twice(2);\n',
    "c/tsconfig.json": tsconfig(["*.ts"]),
    "c/main.ts": "export const z = (;\n",
    // 同一个文件，不同的 strict：共用语法树，类型检查仍按各自的选项（loose 里隐式 any 不算错）
    "d/tsconfig.json": tsconfig(["*.ts"], { strict: false }),
    "d/main.ts": "export function f(v) { return v; }\n",
    "e/tsconfig.json": tsconfig(["../d/*.ts"]),
  });
  const seen: string[] = [];
  const results = checkProjects(["a", "b", "c", "d", "e"].map((d) => path.join(root, d)), (r) => seen.push(path.basename(r.dir)));
  expect(seen).toEqual(["a", "b", "c", "d", "e"]);
  const [a, b, c, d, e] = results;
  expect(a!.ok).toBe(false);
  expect(a!.output).toMatch(/main\.ts\(2,14\): error TS2322: Type 'number' is not assignable to type 'string'\./);
  expect(b!.ok, b!.output).toBe(true);
  expect(b!.files).toBeGreaterThanOrEqual(3); // 两个源文件加上 lib
  expect(c!.ok).toBe(false);
  expect(c!.output).toMatch(/error TS1109: Expression expected\./);
  expect(d!.ok, d!.output).toBe(true);
  expect(e!.ok).toBe(false);
  expect(e!.output).toMatch(/error TS7006: Parameter 'v' implicitly has an 'any' type\./);
});

it("没有 tsconfig.json 的目录：失败并说出来，不当成通过", () => {
  const [missing] = checkProjects([path.join(root, "nope")]);
  expect(missing!.ok).toBe(false);
  expect(missing!.output).toMatch(/tsconfig\.json/);
});
