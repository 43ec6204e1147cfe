"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.Joi = void 0;
var joi_1 = __importDefault(require("joi"));
/** Code points in `value`: a surrogate pair (an emoji, say) is one character, as JSON Schema counts. */
function codePoints(value) {
    var count = value.length;
    for (var i = 0; i < value.length - 1; i++) {
        var unit = value.charCodeAt(i);
        if (unit >= 0xd800 && unit <= 0xdbff) {
            var next = value.charCodeAt(i + 1);
            if (next >= 0xdc00 && next <= 0xdfff) {
                count--;
                i++;
            }
        }
    }
    return count;
}
function compare(length, limit, operator) {
    switch (operator) {
        case '=':
            return length === limit;
        case '>=':
            return length >= limit;
        default:
            return length <= limit;
    }
}
var OPERATORS = { min: '>=', max: '<=', length: '=' };
/**
 * joi's `min`, `max` and `length` without an encoding, counting code points instead of UTF-16
 * units: the API docs say `minLength`/`maxLength`, which JSON Schema counts in code points, and a
 * client counts characters. With an encoding (`max(72, 'utf8')`) they count bytes, as in joi.
 * The rules keep their names, so errors (`string.min` …) and descriptions are joi's own.
 */
var codePointLengths = {
    type: 'string',
    base: joi_1.default.string(),
    rules: {
        codePointLength: {
            method: false,
            args: [
                { name: 'limit', ref: true, assert: function (value) { return Number.isSafeInteger(value) && value >= 0; }, message: 'must be a positive integer' },
                'encoding',
            ],
            validate: function (value, helpers, _a, _b) {
                var limit = _a.limit;
                var name = _b.name, operator = _b.operator, args = _b.args;
                if (compare(codePoints(value), limit, operator))
                    return value;
                return helpers.error("string.".concat(name), { limit: args.limit, value: value });
            },
        },
    },
    overrides: Object.fromEntries(Object.keys(OPERATORS).map(function (name) { return [
        name,
        function (limit, encoding) {
            if (encoding)
                return this.$_parent(name, limit, encoding);
            return this.$_addRule({ name: name, method: 'codePointLength', args: { limit: limit, encoding: undefined }, operator: OPERATORS[name] });
        },
    ]; })),
};
/**
 * joi for what clients send: the same API, with string lengths in characters (code points) like
 * the API docs. Request schemas are built with this one (a lint rule keeps `joi` itself out of them).
 */
exports.Joi = joi_1.default.extend(codePointLengths);
