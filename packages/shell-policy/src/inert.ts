import type { SyntaxNode } from "./grammar.js";
import { variableRisk } from "./variables.js";

/**
 * Code hidden in places that look inert. Bash evaluates arithmetic (`$(( ))`, `(( ))`, `[[ a -eq b ]]`,
 * `${x:off:len}`, array subscripts) by expanding every variable it names and evaluating the value as
 * arithmetic again, so `x='a[$(cmd)]'; echo $((x))` runs cmd; `${x@P}` expands a prompt string, which
 * runs command substitutions; `${!x}` treats a value as a name, subscripts included. Anything but a
 * literal operand there is execution.
 */

const LITERAL_ARITHMETIC = new Set([
  "number",
  "binary_expression",
  "unary_expression",
  "ternary_expression",
  "parenthesized_expression",
]);

const ARITHMETIC_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
const NAME_OPERAND = /^[A-Za-z_][A-Za-z0-9_]*(?:\[(?:-?[0-9]+|[@*])\])?$/;
const LITERAL_INDEX = /^(?:-?[0-9]+|[@*])$/;

/** True when an arithmetic expression holds only numbers and operators. */
export function literalArithmetic(node: SyntaxNode): boolean {
  if (!LITERAL_ARITHMETIC.has(node.type)) return false;
  if (node.type === "number") return /^(?:[0-9]+|0[xX][0-9a-fA-F]+|[0-9]+#[0-9A-Za-z@_]+)$/.test(node.text);
  return node.namedChildren.every((child) => child !== null && literalArithmetic(child));
}

/** Why a node evaluates code although it looks like data, or undefined. Only the node itself is judged. */
export function hiddenCode(node: SyntaxNode): string | undefined {
  switch (node.type) {
    case "arithmetic_expansion": {
      const operands = node.namedChildren.filter((child) => child !== null);
      return operands.every(literalArithmetic)
        ? undefined
        : `the arithmetic ${clip(node.text)} evaluates variables and array subscripts as code`;
    }
    case "subscript": {
      const index = node.childForFieldName("index");
      return !index || LITERAL_INDEX.test(index.text)
        ? undefined
        : `the array subscript in ${clip(node.text)} is evaluated as arithmetic, which runs code`;
    }
    case "expansion":
      return expansionCode(node);
    case "compound_statement": {
      if (node.child(0)?.type !== "((") return undefined;
      const operands = node.namedChildren.filter((child) => child !== null);
      return operands.every(literalArithmetic)
        ? undefined
        : `the arithmetic command ${clip(node.text)} evaluates variables as code`;
    }
    case "c_style_for_statement": {
      const body = node.childForFieldName("body");
      const parts = node.namedChildren.filter((child) => child !== null && child.id !== body?.id);
      return parts.every((part) => part !== null && literalArithmetic(part))
        ? undefined
        : `the arithmetic loop ${clip(node.text)} evaluates variables as code`;
    }
    case "binary_expression": {
      const operator = node.childForFieldName("operator");
      if (operator?.type !== "test_operator" || !ARITHMETIC_TESTS.has(operator.text)) return undefined;
      // `[ a -eq b ]` is the test builtin, which parses integers; only `[[ ]]` evaluates arithmetic.
      if (testKind(node) === "[") return undefined;
      const left = node.childForFieldName("left");
      const right = node.childForFieldName("right");
      return [left, right].every((side) => side && /^-?[0-9]+$/.test(side.text))
        ? undefined
        : `[[ … ${operator.text} … ]] evaluates its operands as arithmetic, which runs code`;
    }
    case "unary_expression": {
      const operator = node.child(0);
      if (operator?.type !== "test_operator" || operator.text !== "-v") return undefined;
      const operand = node.namedChildren.find((child) => child !== null && child.id !== operator.id);
      return operand && NAME_OPERAND.test(operand.text)
        ? undefined
        : "[[ -v NAME ]] evaluates a subscript in NAME as code";
    }
    default:
      return undefined;
  }
}

function testKind(node: SyntaxNode): string | undefined {
  let current: SyntaxNode | null = node.parent;
  while (current && current.type !== "test_command") current = current.parent;
  return current?.child(0)?.type;
}

function expansionCode(node: SyntaxNode): string | undefined {
  const text = node.text;
  const children = node.children.filter((child) => child !== null);
  const second = children[1];
  if (second?.type === "!") {
    if (/^\$\{![A-Za-z_][A-Za-z0-9_]*(?:[*@]|\[[*@]\])\}$/.test(text)) return undefined;
    return `the indirect expansion ${clip(text)} evaluates a variable's value as a name (subscripts run as code)`;
  }
  if (/[^[]@[A-Za-z]\}$/.test(text))
    return `the transformation ${clip(text)} may expand its value as a prompt string, which runs code`;
  let afterColon = false;
  let name = "";
  for (const child of children) {
    if (!name && (child.type === "variable_name" || child.type === "special_variable_name"))
      name = child.text;
    if (child.type === ":") {
      afterColon = true;
      continue;
    }
    if ((child.type === ":=" || child.type === "=") && name) {
      const risk = variableRisk(name);
      if (risk) return `${clip(text)} ${risk}`;
    }
    if (afterColon && child.isNamed && !literalArithmetic(child))
      return `the offset in ${clip(text)} is evaluated as arithmetic, which runs code`;
  }
  return undefined;
}

function clip(text: string, max = 40): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
