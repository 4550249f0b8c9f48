// npm run bench 的书站一项：与 617f0ac 并排、交替量；轮数来自 BENCH_BOOK_ROUNDS。只测参数，不测快慢。
import { describe, expect, it } from "vitest";
import { BASE_COMMIT, benchRounds } from "../bench/book-build.ts";

describe("书站构建的 bench", () => {
  it("钉住的基准是 617f0ac；轮数默认 2，说错时说出给的值", () => {
    expect(BASE_COMMIT).toBe("617f0ac");
    expect(benchRounds({})).toBe(2);
    expect(benchRounds({ BENCH_BOOK_ROUNDS: "1" })).toBe(1);
    for (const bad of ["0", "6", "2.5", "abc", " 2"]) expect(() => benchRounds({ BENCH_BOOK_ROUNDS: bad })).toThrow(`「${bad}」`);
  });
});
