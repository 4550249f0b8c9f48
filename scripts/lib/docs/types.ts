/** 文档检查发现的一个问题：哪个文件、第几行（章节里的行号，从 1 开始）、哪里不对 */
export interface Problem {
  file: string;
  line: number;
  message: string;
}

export interface DocsStats {
  chapters: number;
  /** docs/deep/ 下的深入页（与章节同样核对，单独计数） */
  deepPages: number;
  citations: number;
  transcripts: number;
}
