// A small, independent decoder for the OTLP/HTTP protobuf trace request (opentelemetry-proto's
// ExportTraceServiceRequest), so the test checks the bytes on the wire rather than trusting the encoder.

type Field =
  | { readonly wire: 0; readonly value: bigint }
  | { readonly wire: 1; readonly value: bigint }
  | { readonly wire: 2; readonly value: Uint8Array }
  | { readonly wire: 5; readonly value: number };

function fields(bytes: Uint8Array): Map<number, Field[]> {
  const out = new Map<number, Field[]>();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= bytes.length) throw new Error("truncated varint");
      const byte = bytes[pos++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (pos < bytes.length) {
    const tag = Number(varint());
    const number = tag >>> 3;
    const wire = tag & 7;
    let field: Field;
    if (wire === 0) field = { wire, value: varint() };
    else if (wire === 1) {
      field = { wire, value: view.getBigUint64(pos, true) };
      pos += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      if (pos + length > bytes.length) throw new Error("truncated field");
      field = { wire, value: bytes.subarray(pos, pos + length) };
      pos += length;
    } else if (wire === 5) {
      field = { wire, value: view.getUint32(pos, true) };
      pos += 4;
    } else throw new Error(`unsupported wire type ${wire}`);
    const list = out.get(number) ?? [];
    list.push(field);
    out.set(number, list);
  }
  return out;
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

function messages(map: Map<number, Field[]>, number: number): Uint8Array[] {
  return (map.get(number) ?? []).flatMap((field) => (field.wire === 2 ? [field.value] : []));
}
function first(map: Map<number, Field[]>, number: number): Field | undefined {
  return map.get(number)?.[0];
}

export type AnyValue = string | boolean | number | bigint | AnyValue[];

function anyValue(bytes: Uint8Array): AnyValue {
  const map = fields(bytes);
  const [number, list] = [...map.entries()][0] ?? [];
  const field = list?.[0];
  if (!field) return "";
  switch (number) {
    case 1:
      return field.wire === 2 ? text(field.value) : "";
    case 2:
      return field.wire === 0 && field.value !== 0n;
    case 3:
      return field.wire === 0 ? Number(BigInt.asIntN(64, field.value)) : 0;
    case 4: {
      if (field.wire !== 1) return 0;
      const buffer = new DataView(new ArrayBuffer(8));
      buffer.setBigUint64(0, field.value, true);
      return buffer.getFloat64(0, true);
    }
    case 5:
      return field.wire === 2 ? messages(fields(field.value), 1).map(anyValue) : [];
    default:
      return `<field ${number}>`;
  }
}

function attributes(map: Map<number, Field[]>, number: number): Record<string, AnyValue> {
  const out: Record<string, AnyValue> = {};
  for (const kv of messages(map, number)) {
    const entry = fields(kv);
    const key = first(entry, 1);
    const value = first(entry, 2);
    if (key?.wire === 2) out[text(key.value)] = value?.wire === 2 ? anyValue(value.value) : "";
  }
  return out;
}

export interface DecodedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly startUnixNano: bigint;
  readonly endUnixNano: bigint;
  readonly attributes: Record<string, AnyValue>;
  readonly events: { readonly name: string; readonly attributes: Record<string, AnyValue> }[];
  readonly status: { readonly code: number; readonly message: string };
  readonly resource: Record<string, AnyValue>;
  readonly scope: string;
}

export function decodeTraceRequest(body: Uint8Array): DecodedSpan[] {
  const spans: DecodedSpan[] = [];
  for (const resourceSpans of messages(fields(body), 1)) {
    const rs = fields(resourceSpans);
    const resourceBytes = messages(rs, 1)[0];
    const resource = resourceBytes ? attributes(fields(resourceBytes), 1) : {};
    for (const scopeSpans of messages(rs, 2)) {
      const ss = fields(scopeSpans);
      const scopeBytes = messages(ss, 1)[0];
      const scopeName = scopeBytes ? first(fields(scopeBytes), 1) : undefined;
      for (const spanBytes of messages(ss, 2)) {
        const span = fields(spanBytes);
        const bytesOf = (n: number) => {
          const field = first(span, n);
          return field?.wire === 2 ? field.value : new Uint8Array();
        };
        const fixed = (n: number) => {
          const field = first(span, n);
          return field?.wire === 1 ? field.value : 0n;
        };
        const statusBytes = messages(span, 15)[0];
        const status = statusBytes ? fields(statusBytes) : new Map<number, Field[]>();
        const statusMessage = first(status, 2);
        const statusCode = first(status, 3);
        const kind = first(span, 6);
        spans.push({
          traceId: hex(bytesOf(1)),
          spanId: hex(bytesOf(2)),
          parentSpanId: hex(bytesOf(4)),
          name: text(bytesOf(5)),
          kind: kind?.wire === 0 ? Number(kind.value) : 0,
          startUnixNano: fixed(7),
          endUnixNano: fixed(8),
          attributes: attributes(span, 9),
          events: messages(span, 11).map((eventBytes) => {
            const event = fields(eventBytes);
            const name = first(event, 2);
            return { name: name?.wire === 2 ? text(name.value) : "", attributes: attributes(event, 3) };
          }),
          status: {
            code: statusCode?.wire === 0 ? Number(statusCode.value) : 0,
            message: statusMessage?.wire === 2 ? text(statusMessage.value) : "",
          },
          resource,
          scope: scopeName?.wire === 2 ? text(scopeName.value) : "",
        });
      }
    }
  }
  return spans;
}
