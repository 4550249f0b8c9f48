/**
 * 回声模型：把用户的话原样复述。
 * 它只是占个位置：先把命令行这个壳搭好，step02 再换成看得见整段对话的假模型。
 */

/** 对一句话给出回复。 */
export function echo(text: string): string {
  return `你说的是：${text}`;
}
