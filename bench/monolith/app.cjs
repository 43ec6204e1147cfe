'use strict';
// The monolith restgate's sign-in is measured against: what a generator-rest project answers to
// `POST /auth` (HTTP Basic credentials, the master key as access_token), in one process, written
// the way that generator writes it: Express, passport's basic and bearer strategies, a mongoose
// User model whose password is hashed by native bcrypt at cost 9 (its rounds outside tests), and a
// JSON Web Token. `POST /users` (master key) makes the user to sign in as. Nothing else: no
// sessions, refresh tokens, back-off, second factor or gateway, which restgate's sign-in also does.
//
// PORT (loopback), MONGODB_URL, MONGODB_DB, MASTER_KEY and JWT_SECRET from the environment.

const bcrypt = require('bcrypt');
const express = require('express');
const jwt = require('jsonwebtoken');
const mongoose = require('mongoose');
const passport = require('passport');
const { BasicStrategy } = require('passport-http');
const { Strategy: BearerStrategy } = require('passport-http-bearer');

const { PORT, MONGODB_URL, MONGODB_DB, MASTER_KEY, JWT_SECRET } = process.env;
if (!PORT || !MONGODB_URL || !MASTER_KEY || !JWT_SECRET) throw new Error('PORT, MONGODB_URL, MASTER_KEY and JWT_SECRET are required');

const userSchema = new mongoose.Schema(
  {
    email: { type: String, match: /^\S+@\S+\.\S+$/, required: true, unique: true, trim: true, lowercase: true },
    password: { type: String, required: true, minlength: 6 },
    name: { type: String, index: true, trim: true },
    role: { type: String, enum: ['user', 'admin'], default: 'user' },
    picture: { type: String, trim: true },
  },
  { timestamps: true },
);
userSchema.pre('save', async function hashPassword() {
  if (this.isModified('password')) this.password = await bcrypt.hash(this.password, 9);
});
userSchema.methods.view = function view(full) {
  const fields = full ? ['id', 'name', 'picture', 'email', 'createdAt'] : ['id', 'name', 'picture'];
  return Object.fromEntries(fields.map((field) => [field, this[field]]));
};
userSchema.methods.authenticate = function authenticate(password) {
  return bcrypt.compare(password, this.password).then((valid) => (valid ? this : false));
};
const User = mongoose.model('User', userSchema);

passport.use(
  'password',
  new BasicStrategy((email, password, done) => {
    User.findOne({ email })
      .then((user) => (user ? user.authenticate(password).then((ok) => done(null, ok)) : done(null, false)))
      .catch(done);
  }),
);
passport.use('master', new BearerStrategy((token, done) => done(null, token === MASTER_KEY ? {} : false)));
const master = () => passport.authenticate('master', { session: false });
const password = () => passport.authenticate('password', { session: false });

const app = express();
app.use(express.urlencoded({ extended: false }));
app.use(express.json());
app.use(passport.initialize());
app.post('/auth', master(), password(), (req, res, next) => {
  jwt.sign({ id: req.user.id }, JWT_SECRET, (err, token) => (err ? next(err) : res.status(201).json({ token, user: req.user.view(true) })));
});
app.post('/users', master(), (req, res, next) => {
  User.create({ email: req.body.email, password: req.body.password, name: req.body.name })
    .then((user) => res.status(201).json(user.view(true)))
    .catch(next);
});

mongoose.connect(MONGODB_URL, { dbName: MONGODB_DB || 'monolith' }).then(() => {
  app.listen(Number(PORT), '127.0.0.1', () => process.stdout.write(`monolith listening on 127.0.0.1:${PORT}\n`));
});
