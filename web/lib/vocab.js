// The vocabulary of the random-weights word-level models: about 600 common English words
// (function words, everyday nouns, verbs and adjectives, every word of the lecture notes'
// examples) and punctuation. Anything else is flagged on the page as unknown (<unk>).
const WORDS = `
the a an and or but if then so because as of to in on at by for with from about into over under
after before between through during without within across along behind beside near up down out off
again once here there when where why how all any both each few more most other some such no nor not
only own same than too very can will just should now is are was were be been being am have has had
having do does did doing would could may might must shall i me my myself we us our ours you your
yours he him his himself she her hers herself it its itself they them their theirs themselves what
which who whom this that these those one two three four five six seven eight nine ten first second
last next new old good bad great little small big large long short high low young early late right
left best better same different important public able free full sure true real whole clear close
hot cold warm cool dark light red blue green yellow black white brown happy sad tired hungry quick
slow lazy clever kind brave quiet loud tall busy angry strong weak easy hard simple open empty rich
poor cat cats dog dogs bird birds fish horse cow mouse mice fox rabbit duck animal animals man men woman
women child children boy boys girl girls people person friend friends family mother father sister
brother teacher student students king queen doctor farmer baker mat rug sofa table chair bed door
window house home room garden tree trees park road street city town village river lake sea sky sun
moon star stars cloud clouds rain snow wind water fire earth world country land hill field mountain
book books letter word words sentence story song music picture paper school class lesson question
answer idea thing things time day days night morning evening week year years today tomorrow
yesterday hour minute life way place part work job money bank deposit check shop market food bread
cake apple apples milk tea coffee ball hat car cars boat train bus plane bridge wall box phone
computer machine machines model models data language attention transformer network head heads
layer token tokens query key value vector matrix position order meaning agreement area economic
european august signed translation thinking
say says said go goes went gone come comes came see sees saw seen look looks looked watch watches
make makes made take takes took give gives gave get gets got find finds found know knows knew think
thinks thought tell tells told ask asks asked use uses used want wants wanted like likes liked love
loves loved need needs feel feels felt try tries tried leave leaves left call calls called keep keeps
kept let lets begin begins began seem seems help helps helped show shows showed hear hears heard play
plays played run runs ran move moves moved live lives lived believe bring brings brought happen write
writes wrote read reads sit sits sat stand stands stood lose pay meet meets met include continue set
learn learns learned change lead understand follow follows stop create speak speaks spoke allow add
spend grow grows grew open opens opened walk walks walked win offer remember consider appear buy buys
bought wait waits waited serve die send sends sent expect build builds built stay fall falls fell
cut reach kill remain suggest raise pass sell require report decide pull eat eats ate drink sleep
sleeps slept jump jumps jumped swim swims swam sing sings sang dance drift drifts drifted fly flies
flew chase chases chased carry carries carried hold holds held paint paints painted rest smile
smiles laugh laughs hide hides hid jumps lie lies lay rise rises rose shine shines
`;

const PUNCTUATION = ['.', ',', '!', '?', ';', ':', "'", '"', '(', ')', '-'];

/** Unique words in order, then punctuation: the vocabulary without the 4 specials. */
export const COMMON_WORDS = [...new Set(WORDS.split(/\s+/).filter(Boolean)), ...PUNCTUATION];
