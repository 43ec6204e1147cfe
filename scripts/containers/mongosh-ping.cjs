#!/usr/bin/env node
'use strict';
// Stands in for `mongosh` in the mongo stand-in image (FerretDB has no shell), so that the compose
// file's healthcheck runs as written. Whatever the arguments, it does what that healthcheck's
// script does: sends `ping` to the admin database on 127.0.0.1:27017 and exits 0 only when the
// answer says ok: 1. Plain node, no driver: it is copied into the image alone.
const net = require('node:net');

const OP_MSG = 2013;

function bsonPing() {
  const db = Buffer.from('admin\0');
  const body = Buffer.concat([
    Buffer.from([0x10]),
    Buffer.from('ping\0'),
    int32(1),
    Buffer.from([0x02]),
    Buffer.from('$db\0'),
    int32(db.length),
    db,
    Buffer.from([0x00]),
  ]);
  return Buffer.concat([int32(body.length + 4), body]);
}

function int32(n) {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n);
  return b;
}

// The reply's top-level `ok`: a double (1.0) from MongoDB and FerretDB alike; an int32 is also
// accepted. A reply without it is a failure.
/** @param {Buffer} doc */
function okOf(doc) {
  /** @type {Array<[number, (at: number) => number]>} */
  const readers = [
    [0x01, (i) => doc.readDoubleLE(i)],
    [0x10, (i) => doc.readInt32LE(i)],
  ];
  for (const [type, read] of readers) {
    const at = doc.indexOf(Buffer.concat([Buffer.from([type]), Buffer.from('ok\0')]), 4);
    if (at > 0) return read(at + 4);
  }
  return 0;
}

const header = Buffer.alloc(16);
const message = Buffer.concat([int32(0), Buffer.from([0x00]), bsonPing()]); // flags, section kind 0
header.writeInt32LE(16 + message.length, 0);
header.writeInt32LE(1, 4);
header.writeInt32LE(OP_MSG, 12);

const socket = net.connect(27017, '127.0.0.1');
socket.setTimeout(4000, () => socket.destroy(new Error('no answer within 4 s')));
let reply = Buffer.alloc(0);
socket.on('connect', () => socket.write(Buffer.concat([header, message])));
socket.on('data', (chunk) => {
  reply = Buffer.concat([reply, chunk]);
  if (reply.length >= 4 && reply.length >= reply.readInt32LE(0)) {
    socket.end();
    process.exit(reply.readInt32LE(12) === OP_MSG && okOf(reply.subarray(21)) === 1 ? 0 : 1);
  }
});
socket.on('error', (err) => {
  process.stderr.write(`ping failed: ${err.message}\n`);
  process.exit(1);
});
