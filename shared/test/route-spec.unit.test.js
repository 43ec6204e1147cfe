"use strict";
var __awaiter = (this && this.__awaiter) || function (thisArg, _arguments, P, generator) {
    function adopt(value) { return value instanceof P ? value : new P(function (resolve) { resolve(value); }); }
    return new (P || (P = Promise))(function (resolve, reject) {
        function fulfilled(value) { try { step(generator.next(value)); } catch (e) { reject(e); } }
        function rejected(value) { try { step(generator["throw"](value)); } catch (e) { reject(e); } }
        function step(result) { result.done ? resolve(result.value) : adopt(result.value).then(fulfilled, rejected); }
        step((generator = generator.apply(thisArg, _arguments || [])).next());
    });
};
var __generator = (this && this.__generator) || function (thisArg, body) {
    var _ = { label: 0, sent: function() { if (t[0] & 1) throw t[1]; return t[1]; }, trys: [], ops: [] }, f, y, t, g = Object.create((typeof Iterator === "function" ? Iterator : Object).prototype);
    return g.next = verb(0), g["throw"] = verb(1), g["return"] = verb(2), typeof Symbol === "function" && (g[Symbol.iterator] = function() { return this; }), g;
    function verb(n) { return function (v) { return step([n, v]); }; }
    function step(op) {
        if (f) throw new TypeError("Generator is already executing.");
        while (g && (g = 0, op[0] && (_ = 0)), _) try {
            if (f = 1, y && (t = op[0] & 2 ? y["return"] : op[0] ? y["throw"] || ((t = y["return"]) && t.call(y), 0) : y.next) && !(t = t.call(y, op[1])).done) return t;
            if (y = 0, t) op = [op[0] & 2, t.value];
            switch (op[0]) {
                case 0: case 1: t = op; break;
                case 4: _.label++; return { value: op[1], done: false };
                case 5: _.label++; y = op[1]; op = [0]; continue;
                case 7: op = _.ops.pop(); _.trys.pop(); continue;
                default:
                    if (!(t = _.trys, t = t.length > 0 && t[t.length - 1]) && (op[0] === 6 || op[0] === 2)) { _ = 0; continue; }
                    if (op[0] === 3 && (!t || (op[1] > t[0] && op[1] < t[3]))) { _.label = op[1]; break; }
                    if (op[0] === 6 && _.label < t[1]) { _.label = t[1]; t = op; break; }
                    if (t && _.label < t[2]) { _.label = t[2]; _.ops.push(op); break; }
                    if (t[2]) _.ops.pop();
                    _.trys.pop(); continue;
            }
            op = body.call(thisArg, _);
        } catch (e) { op = [6, e]; y = 0; } finally { f = t = 0; }
        if (op[0] & 5) throw op[1]; return { value: op[0] ? op[1] : void 0, done: true };
    }
};
Object.defineProperty(exports, "__esModule", { value: true });
var joi_1 = require("joi");
var http_1 = require("@restgate/shared/http");
// The types are the subject here: `npm test`'s type-check (tsconfig.check.json) reads this file, so
// each `@ts-expect-error` fails the run when the error it expects is gone.
describe('defineSpec', function () {
    test('when a path names parameters, then the handler gets them as strings, read from the path alone', function () { return __awaiter(void 0, void 0, void 0, function () {
        var api, _a, sessions, own;
        return __generator(this, function (_b) {
            switch (_b.label) {
                case 0:
                    api = {
                        sessions: (0, http_1.defineSpec)({
                            method: 'get',
                            path: '/users/:id/sessions/:sessionId',
                            level: 'user',
                            summary: 'One session.',
                            schemas: { query: joi_1.default.object({ page: joi_1.default.number() }) },
                        }),
                        own: (0, http_1.defineSpec)({ method: 'get', path: '/users/me', level: 'user', summary: 'Me.' }),
                    };
                    _a = (0, http_1.bindRoutes)(api, {
                        sessions: function (_a) { return __awaiter(void 0, [_a], void 0, function (_b) {
                            var page, unknownName;
                            var params = _b.params, query = _b.query;
                            return __generator(this, function (_c) {
                                page = query.page;
                                unknownName = params.userId;
                                return [2 /*return*/, { status: 200, body: { id: params.id, sessionId: params.sessionId, page: page, unknownName: unknownName } }];
                            });
                        }); },
                        own: function (_a) { return __awaiter(void 0, [_a], void 0, function (_b) {
                            var id;
                            var params = _b.params;
                            return __generator(this, function (_c) {
                                id = params.id;
                                return [2 /*return*/, { status: 200, body: { id: id } }];
                            });
                        }); },
                    }), sessions = _a[0], own = _a[1];
                    expect(sessions.path).toBe('/users/:id/sessions/:sessionId');
                    return [4 /*yield*/, expect(own.handler({ params: {} })).resolves.toEqual({ status: 200, body: {} })];
                case 1:
                    _b.sent();
                    return [2 /*return*/];
            }
        });
    }); });
    test('when defined, then the spec is frozen all the way down, and its joi schemas are left as they are', function () {
        var body = joi_1.default.object({ name: joi_1.default.string() });
        var spec = (0, http_1.defineSpec)({
            method: 'post',
            path: '/things',
            level: 'public',
            summary: 'Create.',
            tags: ['things'],
            schemas: { body: body },
        });
        expect(Object.isFrozen(spec)).toBe(true);
        expect(Object.isFrozen(spec.tags)).toBe(true);
        expect(Object.isFrozen(spec.schemas)).toBe(true);
        expect(Object.isFrozen(body)).toBe(false);
    });
});
