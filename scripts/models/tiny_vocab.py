"""The tiny test models' vocabulary and tokenizer (make_test_models.py writes the models).

Every token is placed in a group the weights are designed around (quiet pieces, general words,
one topic, a named entity) and given its NER label; `tokenizer_json` and `TOKENIZER_CONFIG` are
the lowercase WordPiece tokenizer files transformers.js loads. The model benchmark
(bench/models/make_bench_model.py) pads the same vocabulary to a real model's size.
"""

from __future__ import annotations

import unicodedata

import numpy as np

SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']
PUNCTUATION = list('.,!?;:\'"()-/%$&*+=@#[]{}<>_`~|\\^') + ['\u2013', '\u2014', '\u2018', '\u2019',
                                                          '\u201c', '\u201d', '\u2026']
DIGITS = [str(d) for d in range(10)] + [f'##{d}' for d in range(10)]
LETTERS = [chr(c) for c in range(ord('a'), ord('z') + 1)]
LETTER_PIECES = [f'##{c}' for c in LETTERS]
# Single-letter pieces (##s, ##d, ##y) are already among LETTER_PIECES.
SUFFIXES = ('##es ##ed ##ing ##ly ##er ##ers ##est ##ion ##ions ##ment ##ments ##ness ##ful ##less '
            '##al ##ity ##able ##ive ##ic').split()
NAME_PIECES = '##son ##sen ##ova ##ski ##ez'.split()

# 'a' and 'i' are among LETTERS.
FUNCTION_WORDS = """
the an and or but if then than so as of in on at to from by with about into over under after
before between through during without within against among across up down out off near since
until while because although though for is are was were be been being am do does did done doing have
has had having will would shall should can could may might must not no nor yes it its this that
these those there here what which who whom whose when where why how all any both each every few
more most other some such only own same too very just also still even again once me my we us
our you your he him his she her they them their one
""".split()

GENERAL_WORDS = """
said says say told according new first last next two three four five ten hundred thousand million
year years month months week weeks day days today yesterday tomorrow time times people man woman
men women children family city country world part way number group make made take took get got
go went come came see saw know known think thought give gave find found use used work worked
call called show showed set put keep kept begin began start started end ended high low big small
large good great long old young early late major main local national international public
heavy strong cause caused region regions warn warns report reports reported record rise rose
rising fall fell met meet official officials help helps families pay paid house housing
treat dozen outbreak second half monday tuesday wednesday thursday friday saturday sunday
publish published reduce risk severe company companies announce announced plan plans cut job jobs
sale sales prime introduce protect launch carry prepare simple fresh release released save power
gather protest price prices wage wages summary describe finding findings visit worker workers
school students water energy oil change changes increase decrease support warned
""".split()

TOPICS: dict[str, list[str]] = {
    'weather': """rain rainfall storm storms flood floods flooding wind winds forecast weather
        temperature temperatures snow snowfall thunder lightning hurricane cyclone drought heatwave
        cloudy sunny showers humidity meteorologists celsius frost hail tornado river""".split(),
    'finance': """bank banks market markets shares stock stocks profit profits investors investment
        economy economic inflation interest rates currency dollar euro earnings revenue trading
        dividend bonds debt loan loans quarter financial""".split(),
    'medicine': """doctor doctors hospital hospitals patient patients vaccine vaccines disease
        diseases illness virus infection infections treatment medicine medical nurse nurses health clinic
        symptoms surgery drug drugs cancer trial diagnosis""".split(),
    'sport': """football soccer match matches goal goals team teams player players coach league
        championship tournament season score scored win won victory defeat stadium referee cup
        final tennis""".split(),
    'food': """food recipe recipes bread cheese soup rice pasta vegetables fruit chicken salad
        kitchen chef cooking cook dinner lunch breakfast meal restaurant sugar salt butter tomato
        flavour""".split(),
    'technology': """computer computers software internet phone phones smartphone app apps data
        chip chips robot robots algorithm network digital online device devices battery code
        programming cloud engineers artificial intelligence""".split(),
    'politics': """government minister ministers election elections vote votes voters parliament
        president policy law laws party parties campaign senate congress leader leaders
        opposition reform treaty diplomats""".split(),
    'science': """scientists research researchers study studies experiment laboratory physics
        chemistry biology telescope planet planets space galaxy stars astronomers mars orbit
        rocket satellite discovery theory""".split(),
}

FIRST_NAMES = """ada grace alan maria li john james mary anna david sarah peter paul marie charles
emma omar fatima wei yuki carlos elena amara ravi sofia hannah lucas kwame ingrid""".split()
SURNAMES = """lovelace hopper turing curie babbage smith jones garcia chen wang kim nakamura okafor
muller rossi silva patel mensah nguyen ivanova""".split()
ORG_NAMES = """acme unesco unicef google microsoft reuters siemens toyota nasa oxfam nokia intel
fifa nato interpol""".split()
ORG_SUFFIXES = 'corporation corp inc ltd plc institute labs industries holdings'.split()
PLACES = """paris london kenya tokyo berlin nairobi madrid rome china japan france germany india
brazil canada europe africa asia texas california sydney cairo lagos lima oslo vienna delhi
mumbai beijing seoul mexico spain italy egypt nigeria australia""".split()
NATIONALITIES = 'english french german british american chinese japanese kenyan european african'.split()


def build_vocab() -> tuple[list[str], dict[str, str], dict[str, str]]:
    """Vocabulary in id order, each token's embedding group, and each token's NER label."""
    groups: dict[str, str] = {}
    labels: dict[str, str] = {}

    def add(tokens: list[str], group: str, label: str = 'O') -> None:
        for t in tokens:
            assert t not in groups, f'duplicate vocabulary entry {t!r}'
            groups[t] = group
            labels[t] = label

    add(SPECIALS, 'quiet')
    add(PUNCTUATION, 'quiet')
    add(DIGITS, 'quiet')
    add(LETTERS, 'quiet')
    add(LETTER_PIECES, 'quiet')
    add(SUFFIXES, 'quiet')
    add(NAME_PIECES, 'quiet', 'I-PER')
    add(FUNCTION_WORDS, 'quiet')
    add(GENERAL_WORDS, 'general')
    for topic, words in TOPICS.items():
        add(words, f'topic:{topic}')
    add(FIRST_NAMES, 'entity', 'B-PER')
    add(SURNAMES, 'entity', 'I-PER')
    add(ORG_NAMES, 'entity', 'B-ORG')
    add(ORG_SUFFIXES, 'general', 'I-ORG')
    add(PLACES, 'entity', 'B-LOC')
    add(NATIONALITIES, 'general', 'B-MISC')
    return list(groups), groups, labels


def tokenizer_json(vocab: list[str]) -> dict:
    ids = {tok: i for i, tok in enumerate(vocab)}
    cls, sep = ids['[CLS]'], ids['[SEP]']
    return {
        'version': '1.0',
        'truncation': None,
        'padding': None,
        'added_tokens': [
            {'id': ids[t], 'content': t, 'single_word': False, 'lstrip': False, 'rstrip': False,
             'normalized': False, 'special': True}
            for t in SPECIALS
        ],
        'normalizer': {
            'type': 'BertNormalizer',
            'clean_text': True,
            'handle_chinese_chars': True,
            'strip_accents': None,
            'lowercase': True,
        },
        'pre_tokenizer': {'type': 'BertPreTokenizer'},
        'post_processor': {
            'type': 'TemplateProcessing',
            'single': [
                {'SpecialToken': {'id': '[CLS]', 'type_id': 0}},
                {'Sequence': {'id': 'A', 'type_id': 0}},
                {'SpecialToken': {'id': '[SEP]', 'type_id': 0}},
            ],
            'pair': [
                {'SpecialToken': {'id': '[CLS]', 'type_id': 0}},
                {'Sequence': {'id': 'A', 'type_id': 0}},
                {'SpecialToken': {'id': '[SEP]', 'type_id': 0}},
                {'Sequence': {'id': 'B', 'type_id': 1}},
                {'SpecialToken': {'id': '[SEP]', 'type_id': 1}},
            ],
            'special_tokens': {
                '[CLS]': {'id': '[CLS]', 'ids': [cls], 'tokens': ['[CLS]']},
                '[SEP]': {'id': '[SEP]', 'ids': [sep], 'tokens': ['[SEP]']},
            },
        },
        'decoder': {'type': 'WordPiece', 'prefix': '##', 'cleanup': True},
        'model': {
            'type': 'WordPiece',
            'unk_token': '[UNK]',
            'continuing_subword_prefix': '##',
            'max_input_chars_per_word': 100,
            'vocab': ids,
        },
    }


TOKENIZER_CONFIG = {
    'clean_up_tokenization_spaces': True,
    'cls_token': '[CLS]',
    'do_basic_tokenize': True,
    'do_lower_case': True,
    'mask_token': '[MASK]',
    'model_max_length': 512,
    'never_split': None,
    'pad_token': '[PAD]',
    'sep_token': '[SEP]',
    'strip_accents': None,
    'tokenize_chinese_chars': True,
    'tokenizer_class': 'BertTokenizer',
    'unk_token': '[UNK]',
}


# --------------------------------------------------------------------------------------------
# a minimal BERT tokenizer, only to check the design here before anything is written


def _is_punct(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith('P')


def tokenize(text: str, ids: dict[str, int]) -> list[int]:
    words: list[str] = []
    for chunk in text.lower().split():
        cur = ''
        for ch in chunk:
            if _is_punct(ch):
                if cur:
                    words.append(cur)
                words.append(ch)
                cur = ''
            else:
                cur += ch
        if cur:
            words.append(cur)
    out = [ids['[CLS]']]
    for word in words:
        start, pieces = 0, []
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else f'##{word[start:end]}'
                if piece in ids:
                    break
                end -= 1
            if end == start:
                pieces = [ids['[UNK]']]
                break
            pieces.append(ids[piece])
            start = end
        out.extend(pieces)
    return out + [ids['[SEP]']]


def batch(texts: list[str], ids: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    seqs = [tokenize(t, ids) for t in texts]
    n = max(len(s) for s in seqs)
    input_ids = np.zeros((len(seqs), n), dtype=np.int64)
    mask = np.zeros((len(seqs), n), dtype=np.int64)
    for i, s in enumerate(seqs):
        input_ids[i, : len(s)] = s
        mask[i, : len(s)] = 1
    return input_ids, mask
