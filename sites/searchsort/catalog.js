// The shop's catalogue: every product a search can return, by id.
const CATALOG = {
  "cx7": { name: "Corran 7-in-1 USB-C Hub", price: 39.99, stars: "4.6", n: 2814, blurb: "4K HDMI, 100 W pass-through, 2× USB-A 3.0, SD and microSD, USB-C data." },
  "an6": { name: "Anvik 6-Port USB-C Hub with Ethernet", price: 45.99, stars: "4.4", n: 1307, blurb: "Gigabit Ethernet, HDMI, 3× USB-A, USB-C charging." },
  "lm4": { name: "Lumio Slim USB-C Hub, 4 Ports", price: 19.99, stars: "4.3", n: 5120, blurb: "Four USB-A 3.0 ports in an aluminium shell, 9 cm cable." },
  "tk12": { name: "Teklin USB-C Docking Station 12-in-1", price: 89.00, stars: "4.2", n: 644, blurb: "Dual HDMI, DisplayPort, Ethernet, audio, 5 USB ports." },
  "br3": { name: "Brevo USB-C Hub with SD Card Reader", price: 24.50, stars: "4.5", n: 982, blurb: "SD, microSD, 2× USB-A and a USB-C port." },
  "py5": { name: "Pylon Travel USB-C Hub", price: 29.99, stars: "4.1", n: 411, blurb: "Fold-away cable, HDMI 4K30, 2× USB-A, 60 W pass-through." },
  "or8": { name: "Orrin Aluminium USB-C Multiport Adapter", price: 54.00, stars: "4.7", n: 3390, blurb: "HDMI 4K60, Ethernet, 3× USB-A, SD, 100 W pass-through." },
  "vx2": { name: "Vexa USB-C Hub, 100 W Pass-Through", price: 21.99, stars: "4.0", n: 276, blurb: "HDMI, 2× USB-A and USB-C power delivery." },
  // Laptop stands: what a search for "laptop stand" finds.
  "ls1": { name: "Kelso Adjustable Laptop Stand", price: 34.99, stars: "4.6", n: 8840, blurb: "Six heights, aluminium, folds flat." },
  "ls2": { name: "Ardent Vertical Laptop Dock", price: 27.00, stars: "4.3", n: 1502, blurb: "Holds one or two laptops upright." },
  "ls3": { name: "Mira Wooden Monitor Riser", price: 42.00, stars: "4.5", n: 690, blurb: "Walnut riser with a drawer." },
  "ls4": { name: "Halvard Portable Laptop Stand", price: 18.99, stars: "4.2", n: 12033, blurb: "Weighs 140 g, fits in a pocket." },
  "ls5": { name: "Quill Laptop Stand with Cooling Fan", price: 31.50, stars: "3.9", n: 455, blurb: "Two quiet fans, USB powered." },
};
const QUERIES = {
  "laptop stand": ["ls1", "ls4", "ls2", "ls3", "ls5"],
  "usb-c hub": ["cx7", "an6", "lm4", "tk12", "br3", "py5", "or8", "vx2"],
};
