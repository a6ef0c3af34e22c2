//! One party of the two-party arithmetic protocol: products in layers, so
//! that the rounds follow the multiplicative depth, not the number of
//! products.
//!
//! [`Arith::setup`] makes two correlated-OT instances, one per direction
//! (each party is the sender of one, with a Δ of its own). A layer of
//! [`Arith::cross`] products (one party's value times the other's) in both
//! directions takes three messages: B's OT matrix for A's vectors; A's
//! corrections and its OT matrix for B's vectors; B's corrections. A layer
//! in one direction takes two. Products of shared values use Beaver
//! triples ([`Arith::triples`], a batched offline phase made of two cross
//! products per triple) and cost two messages a layer online
//! ([`Arith::mul`]).

use twofold_circuit::Party;
use twofold_crypto::Prg;
use twofold_net::Transport;

use super::extensions::Extensions;
use super::packed;
use super::ring::{random_word, Width};
use super::vole::{VoleReceiver, VoleSender};
use crate::error::ProtocolError;

/// This party's part of one layer of products between a value of one
/// party and a value of the other. The peer's layer mirrors it: its
/// `scalars` (with `peer_lens`) are this party's `vectors`, and the other
/// way round.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cross<'a> {
    /// Vectors this party holds; the peer holds one scalar for each, and
    /// both get shares of every word of the vector times the scalar.
    pub vectors: &'a [Vec<u64>],
    /// Scalars this party holds.
    pub scalars: &'a [u64],
    /// The length of the peer's vector that each scalar multiplies.
    pub peer_lens: &'a [usize],
}

/// This party's shares of a layer of [`Cross`] products.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrossShares {
    /// Shares of the products of this party's vectors, word by word.
    pub vectors: Vec<Vec<u64>>,
    /// Shares of the products of this party's scalars with the peer's
    /// vectors, word by word.
    pub scalars: Vec<Vec<u64>>,
}

/// One factor of a matrix product `Z = X·Y` whose factors two parties
/// hold: `X` is `n×m`, `Y` is `m×p`, both row-major.
#[derive(Clone, Copy, Debug)]
pub enum Factor<'a> {
    /// This party holds `X`.
    Left(&'a [u64]),
    /// This party holds `Y`.
    Right(&'a [u64]),
}

/// Beaver triples `(a, b, c = a·b)` of one ring, as this party's shares;
/// each [`Arith::mul`] uses up one per product.
pub struct Triples {
    width: Width,
    a: Vec<u64>,
    b: Vec<u64>,
    c: Vec<u64>,
}

impl Triples {
    /// Triples left.
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// Whether none are left.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }

    /// The ring the triples are of.
    pub fn width(&self) -> Width {
        self.width
    }

    /// Takes `n` triples from the end, or fails if fewer are left.
    fn take(&mut self, n: usize, width: Width) -> Result<Triples, ProtocolError> {
        if width != self.width || n > self.len() {
            return Err(ProtocolError::Inputs(format!(
                "{n} products in {width} need as many triples of that ring; {} of {} are left",
                self.len(),
                self.width
            )));
        }
        let at = self.len() - n;
        Ok(Triples {
            width,
            a: self.a.split_off(at),
            b: self.b.split_off(at),
            c: self.c.split_off(at),
        })
    }
}

/// One party of the arithmetic protocol: its two correlated-OT instances,
/// its randomness and the messages it has waited for.
pub struct Arith {
    party: Party,
    /// This party's vectors times the peer's scalars.
    sender: VoleSender,
    /// This party's scalars times the peer's vectors.
    receiver: VoleReceiver,
    prg: Prg,
    flights: u64,
}

impl std::fmt::Debug for Arith {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Arith({})", self.party)
    }
}

impl Arith {
    /// Sets up party `party` with the peer over `chan` (the peer calls it
    /// with the other party and the same `session_id`, which should be
    /// unique to the session): the base OTs of both directions, each with
    /// [`Extension::DEFAULT`](twofold_ot::Extension::DEFAULT).
    pub fn setup(
        chan: &mut impl Transport,
        party: Party,
        session_id: &[u8],
    ) -> Result<Arith, ProtocolError> {
        Arith::setup_with(chan, party, session_id, &Extensions::default())
    }

    /// Like [`setup`](Arith::setup), each direction with its extension in
    /// `exts` (the peer gives the same).
    pub fn setup_with(
        chan: &mut impl Transport,
        party: Party,
        session_id: &[u8],
        exts: &Extensions,
    ) -> Result<Arith, ProtocolError> {
        let a_sends = [session_id, b"/arith/a-sends"].concat();
        let b_sends = [session_id, b"/arith/b-sends"].concat();
        let (sender, receiver) = match party {
            Party::A => {
                let sender = VoleSender::setup(chan, &a_sends, exts.a_vectors)?;
                (sender, VoleReceiver::setup(chan, &b_sends, exts.b_vectors)?)
            }
            Party::B => {
                let receiver = VoleReceiver::setup(chan, &a_sends, exts.a_vectors)?;
                (VoleSender::setup(chan, &b_sends, exts.b_vectors)?, receiver)
            }
        };
        Ok(Arith {
            party,
            sender,
            receiver,
            prg: Prg::try_from_os()?,
            // B's base-OT message, A's reply with its own, B's reply.
            flights: 3,
        })
    }

    /// Computes the products' hashes and corrections on `threads` threads
    /// (at least one) from now on. Each party chooses its own: what is
    /// sent does not depend on it.
    pub fn set_threads(&mut self, threads: usize) {
        self.sender.set_threads(threads);
        self.receiver.set_threads(threads);
    }

    /// This party.
    pub fn party(&self) -> Party {
        self.party
    }

    /// Messages sent so far, by both parties together, that a party had
    /// to wait for (setup included): the latency a run pays is about this
    /// many one-way trips.
    pub fn flights(&self) -> u64 {
        self.flights
    }

    /// One layer of products of one party's values with the other's, in
    /// ring `width`: shares of every `x[k]·y` for each vector `x` of one
    /// party and the matching scalar `y` of the other.
    pub fn cross(
        &mut self,
        chan: &mut impl Transport,
        width: Width,
        layer: Cross<'_>,
    ) -> Result<CrossShares, ProtocolError> {
        self.cross_bits(chan, width, width.bits(), layer)
    }

    /// [`cross`](Arith::cross) with scalars of `bits` bits (1 for bits
    /// injected into the ring).
    fn cross_bits(
        &mut self,
        chan: &mut impl Transport,
        width: Width,
        bits: u32,
        layer: Cross<'_>,
    ) -> Result<CrossShares, ProtocolError> {
        let Cross {
            vectors,
            scalars,
            peer_lens,
        } = layer;
        let send = |this: &mut Self, chan: &mut _| -> Result<_, ProtocolError> {
            if vectors.is_empty() {
                return Ok(Vec::new());
            }
            this.sender.send(chan, width, bits, vectors)
        };
        let receive = |this: &mut Self, chan: &mut _| -> Result<_, ProtocolError> {
            if scalars.is_empty() {
                return Ok(Vec::new());
            }
            let pending = this.receiver.choose(chan, bits, scalars, peer_lens)?;
            this.receiver.finish(chan, width, pending)
        };
        // A's vectors go first: B's matrix, then A's corrections with A's
        // matrix for B's vectors (one message), then B's corrections.
        let (mine, theirs) = match self.party {
            Party::A => {
                let mine = send(self, chan)?;
                chan.flush()?;
                (mine, receive(self, chan)?)
            }
            Party::B => {
                let theirs = receive(self, chan)?;
                let mine = send(self, chan)?;
                chan.flush()?;
                (mine, theirs)
            }
        };
        self.flights += match (vectors.is_empty(), scalars.is_empty()) {
            (true, true) => 0,
            (false, false) => 3,
            _ => 2,
        };
        Ok(CrossShares {
            vectors: mine,
            scalars: theirs,
        })
    }

    /// Shares of the matrix product `Z = X·Y` (`n×p`, row-major) of `X`
    /// (`n×m`) held by one party and `Y` (`m×p`) by the other, in one
    /// layer: each element `Y[k][j]` multiplies column `k` of `X` as one
    /// vector, so the OTs are paid once per element of `Y`.
    pub fn matmul(
        &mut self,
        chan: &mut impl Transport,
        width: Width,
        (n, m, p): (usize, usize, usize),
        mine: Factor<'_>,
    ) -> Result<Vec<u64>, ProtocolError> {
        let (len, held) = match mine {
            Factor::Left(x) => (n * m, x),
            Factor::Right(y) => (m * p, y),
        };
        if held.len() != len {
            return Err(ProtocolError::Inputs(format!(
                "a {}×{} matrix has {len} elements, {} given",
                if matches!(mine, Factor::Left(_)) {
                    n
                } else {
                    m
                },
                if matches!(mine, Factor::Left(_)) {
                    m
                } else {
                    p
                },
                held.len()
            )));
        }
        // Group g = k·p + j: column k of X times Y[k][j].
        let shares = match mine {
            Factor::Left(x) => {
                let vectors: Vec<Vec<u64>> = (0..m * p)
                    .map(|g| (0..n).map(|i| x[i * m + g / p]).collect())
                    .collect();
                let layer = Cross {
                    vectors: &vectors,
                    ..Cross::default()
                };
                self.cross(chan, width, layer)?.vectors
            }
            Factor::Right(y) => {
                let lens = vec![n; m * p];
                let layer = Cross {
                    scalars: y,
                    peer_lens: &lens,
                    ..Cross::default()
                };
                self.cross(chan, width, layer)?.scalars
            }
        };
        let mut z = vec![0u64; n * p];
        for (g, column) in shares.iter().enumerate() {
            for (i, &s) in column.iter().enumerate() {
                let at = i * p + g % p;
                z[at] = width.add(z[at], s);
            }
        }
        Ok(z)
    }

    /// Shares of bits into ring `width` (bit injection): given this
    /// party's XOR shares `bᵢ` of bits `b = b_A ⊕ b_B`, its additive shares
    /// of `b = b_A + b_B − 2·b_A·b_B`, at one correlated OT of a `w`-bit
    /// word per bit.
    pub fn inject_bits(
        &mut self,
        chan: &mut impl Transport,
        width: Width,
        bits: &[bool],
    ) -> Result<Vec<u64>, ProtocolError> {
        let words: Vec<u64> = bits.iter().map(|&b| b as u64).collect();
        let vectors: Vec<Vec<u64>>;
        let ones = vec![1; bits.len()];
        let layer = match self.party {
            Party::A => {
                vectors = words.iter().map(|&b| vec![b]).collect();
                Cross {
                    vectors: &vectors,
                    ..Cross::default()
                }
            }
            Party::B => Cross {
                scalars: &words,
                peer_lens: &ones,
                ..Cross::default()
            },
        };
        let shares = self.cross_bits(chan, width, 1, layer)?;
        let products = match self.party {
            Party::A => shares.vectors,
            Party::B => shares.scalars,
        };
        Ok(words
            .iter()
            .zip(products)
            .map(|(&b, p)| width.sub(b, width.mul(2, p[0])))
            .collect())
    }

    /// `n` Beaver triples of ring `width`, made in one batch (before the
    /// inputs are known): random `a`, `b` of each party, and `c = a·b` from
    /// the local terms and the two cross products `a_A·b_B`, `a_B·b_A`.
    pub fn triples(
        &mut self,
        chan: &mut impl Transport,
        width: Width,
        n: usize,
    ) -> Result<Triples, ProtocolError> {
        let a: Vec<u64> = (0..n).map(|_| random_word(&mut self.prg, width)).collect();
        let b: Vec<u64> = (0..n).map(|_| random_word(&mut self.prg, width)).collect();
        let vectors: Vec<Vec<u64>> = a.iter().map(|&a| vec![a]).collect();
        let ones = vec![1; n];
        let cross = self.cross(
            chan,
            width,
            Cross {
                vectors: &vectors,
                scalars: &b,
                peer_lens: &ones,
            },
        )?;
        let c = (0..n)
            .map(|i| {
                let own = width.mul(a[i], b[i]);
                width.add(own, width.add(cross.vectors[i][0], cross.scalars[i][0]))
            })
            .collect();
        Ok(Triples { width, a, b, c })
    }

    /// One layer of products of shared values, `x[i]·y[i]`, with Beaver
    /// triples: both parties open `d = x − a` and `e = y − b` (two
    /// messages), then `z = c + d·b + e·a (+ d·e for party A)`.
    pub fn mul(
        &mut self,
        chan: &mut impl Transport,
        width: Width,
        x: &[u64],
        y: &[u64],
        triples: &mut Triples,
    ) -> Result<Vec<u64>, ProtocolError> {
        if x.len() != y.len() {
            return Err(ProtocolError::Inputs(format!(
                "{} left factors and {} right factors",
                x.len(),
                y.len()
            )));
        }
        let n = x.len();
        let Triples { a, b, c, .. } = triples.take(n, width)?;
        let masked: Vec<u64> = (0..n)
            .map(|i| width.sub(x[i], a[i]))
            .chain((0..n).map(|i| width.sub(y[i], b[i])))
            .collect();
        let opened = self.open(chan, width, &masked)?;
        let (d, e) = opened.split_at(n);
        Ok((0..n)
            .map(|i| {
                let z = width.add(
                    c[i],
                    width.add(width.mul(d[i], b[i]), width.mul(e[i], a[i])),
                );
                match self.party {
                    Party::A => width.add(z, width.mul(d[i], e[i])),
                    Party::B => z,
                }
            })
            .collect())
    }

    /// Dot products of shared vectors, `Σₖ x[k]·y[k]` for each pair, in one
    /// layer: the terms are multiplied with triples and added up locally,
    /// one share per result.
    pub fn dot(
        &mut self,
        chan: &mut impl Transport,
        width: Width,
        pairs: &[(Vec<u64>, Vec<u64>)],
        triples: &mut Triples,
    ) -> Result<Vec<u64>, ProtocolError> {
        let x: Vec<u64> = pairs.iter().flat_map(|(x, _)| x.iter().copied()).collect();
        let y: Vec<u64> = pairs.iter().flat_map(|(_, y)| y.iter().copied()).collect();
        if pairs.iter().any(|(x, y)| x.len() != y.len()) {
            return Err(ProtocolError::Inputs(
                "a dot product of vectors of different lengths".into(),
            ));
        }
        let terms = self.mul(chan, width, &x, &y, triples)?;
        let mut at = 0;
        Ok(pairs
            .iter()
            .map(|(x, _)| {
                let sum = terms[at..at + x.len()]
                    .iter()
                    .fold(0, |acc, &t| width.add(acc, t));
                at += x.len();
                sum
            })
            .collect())
    }

    /// Opens shared values to both parties: A sends its shares, then B
    /// (two messages); returns the values.
    pub fn open(
        &mut self,
        chan: &mut impl Transport,
        width: Width,
        shares: &[u64],
    ) -> Result<Vec<u64>, ProtocolError> {
        let n = shares.len();
        let bits = width.bits();
        let theirs = match self.party {
            Party::A => {
                packed::send_words(chan, shares.iter().copied(), bits)?;
                chan.flush()?;
                packed::recv_words(chan, n, bits, "B's shares")?
            }
            Party::B => {
                let theirs = packed::recv_words(chan, n, bits, "A's shares")?;
                packed::send_words(chan, shares.iter().copied(), bits)?;
                chan.flush()?;
                theirs
            }
        };
        self.flights += 2;
        Ok(shares
            .iter()
            .zip(theirs)
            .map(|(&s, t)| width.add(s, t))
            .collect())
    }

    /// Opens shared values to party `to` only (one message); returns the
    /// values to `to` and `None` to the other.
    pub fn open_to(
        &mut self,
        chan: &mut impl Transport,
        width: Width,
        shares: &[u64],
        to: Party,
    ) -> Result<Option<Vec<u64>>, ProtocolError> {
        self.flights += 1;
        if self.party != to {
            packed::send_words(chan, shares.iter().copied(), width.bits())?;
            chan.flush()?;
            return Ok(None);
        }
        let theirs = packed::recv_words(chan, shares.len(), width.bits(), "the peer's shares")?;
        Ok(Some(
            shares
                .iter()
                .zip(theirs)
                .map(|(&s, t)| width.add(s, t))
                .collect(),
        ))
    }
}
