import { createHash } from 'node:crypto';
import { recoverAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  decodeTronRaw,
  decodeTronTrigger,
  encodeTronRaw,
  encodeTronTrigger,
  ProtobufError,
  type TronRaw,
} from './tron-protobuf.ts';
import { addressBytes, addressOfBytes, tronRawFromJson, tronRawToJson } from './tron-raw-json.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const bytes = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));
const sha256 = (text: string) => createHash('sha256').update(bytes(text)).digest('hex');

/**
 * A signed USDT transfer on Nile, as a full node's /wallet/gettransactionbyid showed it (a test
 * fixture in a public Go Tron SDK): its id is the SHA-256 of these bytes, and its signature
 * recovers its owner.
 */
const NILE = {
  txID: 'c70b20da8cb8d96a99c1aceb283412acb9dea313a9e467178431a3c6ae8b9f08',
  signature:
    '1788bf0281f67c42f5a09322523edee9969e808a863776f21ab6543de9dd42ca0e4955577879df8074086c620eb96709ba9a95d60a166de190a081e8d69801da00',
  raw_data: {
    contract: [
      {
        parameter: {
          value: {
            data: 'a9059cbb00000000000000000000004150125bea243a640bf85348873b6c4f3c517aee7a0000000000000000000000000000000000000000000000000000000000000001',
            owner_address: '41495511a493d8c362be4267224e6d81013a6862ee',
            contract_address: '41eca9bc828a3005b9a3b909f2cc5c2a54794de05f',
          },
          type_url: 'type.googleapis.com/protocol.TriggerSmartContract',
        },
        type: 'TriggerSmartContract',
      },
    ],
    ref_block_bytes: '8ad9',
    ref_block_hash: 'eaef69105495eb15',
    expiration: 1773182914544,
    fee_limit: 100000000,
    timestamp: 1773182854544,
  },
  raw_data_hex:
    '0a028ad92208eaef69105495eb1540f09fc0cfcd335aae01081f12a9010a31747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e54726967676572536d617274436f6e747261637412740a1541495511a493d8c362be4267224e6d81013a6862ee121541eca9bc828a3005b9a3b909f2cc5c2a54794de05f2244a9059cbb00000000000000000000004150125bea243a640bf85348873b6c4f3c517aee7a00000000000000000000000000000000000000000000000000000000000000017090cbbccfcd33900180c2d72f',
};

/** An unsigned TRX transfer on Nile, from /wallet/createtransaction (same fixture). */
const NILE_TRANSFER = {
  txID: 'ae80c7aa55e19c2da5e712d4be50e4c9422dd6bfc99039cc42d5deb76938c0e7',
  raw_data_hex:
    '0a028acb22087c571ea3e7e9dbf340c8f1c0cfcd335a66080112620a2d747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e5472616e73666572436f6e747261637412310a1541eca9bc828a3005b9a3b909f2cc5c2a54794de05f121541495511a493d8c362be4267224e6d81013a6862ee18e807708da3bdcfcd33',
};

const OWNER = `41${'11'.repeat(20)}`;
const TARGET = `41${'22'.repeat(20)}`;

function rawOf(overrides: Partial<TronRaw> = {}): TronRaw {
  return {
    refBlockBytes: new Uint8Array(),
    refBlockNum: 0n,
    refBlockHash: new Uint8Array(),
    expiration: 0n,
    auths: [],
    data: new Uint8Array(),
    contract: [],
    scripts: new Uint8Array(),
    timestamp: 0n,
    feeLimit: 0n,
    ...overrides,
  };
}

describe('a real transaction from a Tron full node', () => {
  it('is hashed to its txID and signed by its owner', async () => {
    expect(sha256(NILE.raw_data_hex)).toBe(NILE.txID);
    const signer = await recoverAddress({
      hash: `0x${NILE.txID}`,
      signature: `0x${NILE.signature}`,
    });
    expect(`41${signer.slice(2).toLowerCase()}`).toBe(
      NILE.raw_data.contract[0]?.parameter.value.owner_address,
    );
  });

  it('decodes to the fields its raw_data shows', () => {
    const raw = decodeTronRaw(bytes(NILE.raw_data_hex));
    expect(hex(raw.refBlockBytes)).toBe('8ad9');
    expect(hex(raw.refBlockHash)).toBe('eaef69105495eb15');
    expect(raw.expiration).toBe(1773182914544n);
    expect(raw.timestamp).toBe(1773182854544n);
    expect(raw.feeLimit).toBe(100000000n);
    expect(raw.contract).toHaveLength(1);
    const [contract] = raw.contract;
    expect(contract?.type).toBe(31);
    expect(contract?.parameter?.typeUrl).toBe('type.googleapis.com/protocol.TriggerSmartContract');
    const trigger = decodeTronTrigger(contract?.parameter?.value ?? new Uint8Array());
    const value = NILE.raw_data.contract[0]?.parameter.value;
    expect(hex(trigger.ownerAddress)).toBe(value?.owner_address);
    expect(hex(trigger.contractAddress)).toBe(value?.contract_address);
    expect(hex(trigger.data)).toBe(value?.data);
    expect(trigger.callValue).toBe(0n);
    expect(tronRawToJson(raw)).toEqual(NILE.raw_data);
  });

  it('encodes back to the same bytes, from its fields and from its raw_data', () => {
    expect(hex(encodeTronRaw(decodeTronRaw(bytes(NILE.raw_data_hex))))).toBe(NILE.raw_data_hex);
    const described = tronRawFromJson(NILE.raw_data);
    expect(described.issues).toEqual([]);
    expect(hex(encodeTronRaw(described.raw))).toBe(NILE.raw_data_hex);
  });

  it('reads other contract types too, keeping their parameter as bytes', () => {
    expect(sha256(NILE_TRANSFER.raw_data_hex)).toBe(NILE_TRANSFER.txID);
    const raw = decodeTronRaw(bytes(NILE_TRANSFER.raw_data_hex));
    expect(raw.contract[0]?.type).toBe(1);
    expect(raw.contract[0]?.parameter?.typeUrl).toBe(
      'type.googleapis.com/protocol.TransferContract',
    );
    expect(hex(encodeTronRaw(raw))).toBe(NILE_TRANSFER.raw_data_hex);
  });
});

describe('writing', () => {
  it('writes a TriggerSmartContract field by field, leaving zeros out', () => {
    const trigger = {
      ownerAddress: bytes(OWNER),
      contractAddress: bytes(TARGET),
      callValue: 5n,
      data: bytes('095ea7b3'),
      callTokenValue: 0n,
      tokenId: 0n,
    };
    // 0a 15 <owner>: field 1, 21 bytes; 12 15 <target>: field 2; 18 05: field 3 = 5;
    // 22 04 095ea7b3: field 4, 4 bytes.
    expect(hex(encodeTronTrigger(trigger))).toBe(`0a15${OWNER}1215${TARGET}18052204095ea7b3`);
    expect(decodeTronTrigger(encodeTronTrigger(trigger))).toEqual(trigger);
  });

  it('writes raw data in field order, with multi-byte keys and varints', () => {
    const raw = rawOf({
      refBlockBytes: bytes('abcd'),
      refBlockHash: bytes('0102030405060708'),
      expiration: 1n,
      timestamp: 128n,
      feeLimit: 300_000_000n,
    });
    // 0a 02 abcd; 22 08 <hash>; 40 01 (field 8); 70 8001 (field 14 = 128);
    // 9001 80c6868f01 (field 18, a two-byte key, = 300,000,000).
    expect(hex(encodeTronRaw(raw))).toBe(
      '0a02abcd' + '22080102030405060708' + '4001' + '708001' + '900180c6868f01',
    );
    expect(decodeTronRaw(encodeTronRaw(raw))).toEqual(raw);
  });

  it('writes a negative int64 as ten bytes and reads it back', () => {
    const raw = rawOf({ refBlockNum: -1n });
    expect(hex(encodeTronRaw(raw))).toBe('18ffffffffffffffffff01');
    expect(decodeTronRaw(encodeTronRaw(raw)).refBlockNum).toBe(-1n);
  });
});

describe('strict reading', () => {
  const refused: [string, string, string][] = [
    ['an unknown field', '7801', 'Transaction.raw has unknown field 15'],
    [
      'a singular field given twice',
      '40014002',
      'Transaction.raw.expiration is given more than once',
    ],
    ['a field of the wrong wire type', '4201ff', 'Transaction.raw.expiration has wire type 2'],
    ['a fixed-width field', '4501020304', 'Transaction.raw field 8 has wire type 5'],
    ['a length past the end', '0a05abcd', 'Transaction.raw field 1 runs past the end'],
    ['a truncated varint', '4080', 'Transaction.raw ends inside a varint'],
    [
      'a varint over ten bytes',
      `40${'80'.repeat(10)}01`,
      'Transaction.raw has a varint over 10 bytes',
    ],
    ['field number 0', '0001', 'Transaction.raw has an invalid field number'],
    [
      'JSON',
      Buffer.from('{"contract":[]}').toString('hex'),
      'Transaction.raw field 15 has wire type 3',
    ],
    ['an unknown field inside a contract', '5a023801', 'Transaction.Contract has unknown field 7'],
  ];
  for (const [what, input, message] of refused)
    it(`refuses ${what}`, () => {
      expect(() => decodeTronRaw(bytes(input))).toThrow(new ProtobufError(message));
    });

  it('keeps repeated contracts, in order', () => {
    const contract = {
      type: 31,
      parameter: { typeUrl: 'u', value: bytes('0a00') },
      provider: new Uint8Array(),
      contractName: new Uint8Array(),
      permissionId: 2,
    };
    const raw = rawOf({ contract: [contract, { ...contract, permissionId: 3 }] });
    expect(decodeTronRaw(encodeTronRaw(raw)).contract.map((c) => c.permissionId)).toEqual([2, 3]);
  });
});

describe('TronWeb JSON', () => {
  it('lists malformed fields by their path', () => {
    const { issues } = tronRawFromJson({
      contract: [
        {
          type: 'TriggerSmartContract',
          parameter: {
            type_url: 'type.googleapis.com/protocol.TriggerSmartContract',
            value: { owner_address: 'nope', contract_address: TARGET, data: '12', call_value: -1 },
          },
        },
      ],
      fee_limit: 1.5,
      ref_block_hash: 'xyz',
    });
    expect(issues).toEqual([
      { field: 'ref_block_hash', message: 'must be hex' },
      {
        field: 'contract[0].parameter.value.owner_address',
        message: 'must be a Tron address (41 and 40 hex digits, or base58)',
      },
      {
        field: 'contract[0].parameter.value.data',
        message: 'must be hex: a selector and its arguments',
      },
      { field: 'contract[0].parameter.value.call_value', message: 'must be a whole number of sun' },
      { field: 'fee_limit', message: 'must be a whole number' },
    ]);
  });

  it('takes base58 addresses (visible: true) as the same bytes as 41… hex', () => {
    const base58 = addressOfBytes(bytes(OWNER));
    expect(base58).toMatch(/^T/);
    expect(hex(addressBytes(base58) ?? new Uint8Array())).toBe(OWNER);
    expect(addressOfBytes(bytes(`42${'11'.repeat(20)}`))).toBeNull();
  });
});
